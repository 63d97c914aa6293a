package emulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// testKey is one RSA key for all TPPs of the package's tests (RSA key
// generation is slow under -race).
var testKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// fakeClock is a settable clock for WithClock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now().UTC().Truncate(time.Second)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// startServer starts an emulator that certifies the shared test key.
func startServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	key, err := testKey()
	require.NoError(t, err)
	s := NewServer(append([]Option{WithTPPKey(key)}, opts...)...)
	t.Cleanup(s.Close)
	return s
}

// tppClient makes signed requests to a Server as a TPP would.
type tppClient struct {
	t      testing.TB
	s      *Server
	creds  *signing.Credentials
	signer *signing.Signer
	hc     *http.Client
}

func newTPPClient(t testing.TB, s *Server, name string) *tppClient {
	t.Helper()
	creds, err := s.NewTPP(name)
	require.NoError(t, err)
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	require.NoError(t, err)
	return &tppClient{t: t, s: s, creds: creds, signer: signer, hc: s.Client()}
}

// reqOpt changes a request before it is signed (pre) or after (post).
type reqOpt struct {
	pre  func(*http.Request)
	post func(*http.Request)
}

// hdr sets a header before signing.
func hdr(name, value string) reqOpt {
	return reqOpt{pre: func(r *http.Request) { r.Header.Set(name, value) }}
}

// without removes a header before signing.
func without(name string) reqOpt {
	return reqOpt{pre: func(r *http.Request) { r.Header.Del(name) }}
}

// after changes the request after signing (tampering).
func after(f func(*http.Request)) reqOpt { return reqOpt{post: f} }

// psuHeaders sets the headers of a PSU session with the PSU present.
func psuHeaders(psuID, sessionID string) []reqOpt {
	return []reqOpt{
		hdr("PSU-ID", psuID), hdr("TPP-Session-ID", sessionID),
		hdr("TPP-Redirect-URI", "https://tpp.example/cb?state=abc"), hdr("PSU-IP-Address", "192.0.2.10"),
	}
}

// defaultRedirectURI is the TPP-Redirect-URI build sends unless told
// otherwise.
const defaultRedirectURI = "https://tpp.example/cb?state=default"

// build returns a signed request for path (relative to s.URL, or absolute).
func (c *tppClient) build(method, path string, body []byte, opts ...reqOpt) *http.Request {
	c.t.Helper()
	u := path
	if strings.HasPrefix(path, "/") {
		u = c.s.URL + path
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, rd)
	require.NoError(c.t, err)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", c.s.wireNow().UTC().Format(http.TimeFormat)) // the wire clock, as a real client reads it
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(c.creds.Certificate.Raw))
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Digest", signing.Digest(body))
	}
	if !strings.Contains(req.URL.Path, "/v1/sandbox/") {
		// Required on every call but the mock-data ones (required.go);
		// without("TPP-Redirect-URI") leaves it out.
		req.Header.Set("TPP-Redirect-URI", defaultRedirectURI)
	}
	for _, o := range opts {
		if o.pre != nil {
			o.pre(req)
		}
	}
	if req.Header.Get("Signature") == "" {
		require.NoError(c.t, c.signer.Sign(req))
	}
	for _, o := range opts {
		if o.post != nil {
			o.post(req)
		}
	}
	return req
}

// response is a read answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into a generic value.
func (r *response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

// problem returns the first tppMessage's code and path.
func (r *response) problem(t testing.TB) (code, path string) {
	t.Helper()
	var e struct {
		TPPMessages []tppMessage `json:"tppMessages"`
	}
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	require.NotEmpty(t, e.TPPMessages, string(r.body))
	return e.TPPMessages[0].Code, e.TPPMessages[0].Path
}

// scaRedirect returns the _links.scaRedirect href of the body.
func (r *response) scaRedirect(t testing.TB) string {
	t.Helper()
	var e struct {
		Links map[string]link `json:"_links"`
	}
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	require.Contains(t, e.Links, "scaRedirect", string(r.body))
	return e.Links["scaRedirect"].Href
}

func (c *tppClient) send(req *http.Request) *response {
	c.t.Helper()
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (c *tppClient) do(method, path string, body []byte, opts ...reqOpt) *response {
	c.t.Helper()
	return c.send(c.build(method, path, body, opts...))
}

func (c *tppClient) get(path string, opts ...reqOpt) *response {
	c.t.Helper()
	return c.do(http.MethodGet, path, nil, opts...)
}

// login runs the consent flow for a private customer in session sid and
// returns the PSU-ID.
func (c *tppClient) login(customerNumber, sid string) string {
	c.t.Helper()
	cb := c.consent(sid, func(href string) (*url.URL, error) {
		return c.s.Control().Authorize(context.Background(), href, customerNumber)
	})
	psuID := cb.Query().Get("psu-id")
	require.NotEmpty(c.t, psuID, cb.String())
	return psuID
}

// consent posts a bank-offered consent in session sid and completes its
// SCA with complete.
func (c *tppClient) consent(sid string, complete func(href string) (*url.URL, error)) *url.URL {
	c.t.Helper()
	r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil,
		hdr("TPP-Session-ID", sid), hdr("TPP-Redirect-URI", "https://tpp.example/cb?state=abc"))
	require.Equal(c.t, http.StatusCreated, r.status, string(r.body))
	cb, err := complete(r.scaRedirect(c.t))
	require.NoError(c.t, err)
	return cb
}

// accountIDs lists the account ids of a session.
func (c *tppClient) accountIDs(opts ...reqOpt) []string {
	c.t.Helper()
	r := c.get("/v1/accounts", opts...)
	require.Equal(c.t, http.StatusOK, r.status, string(r.body))
	var out struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	require.NoError(c.t, json.Unmarshal(r.body, &out))
	ids := make([]string, 0, len(out.Accounts))
	for _, a := range out.Accounts {
		ids = append(ids, a.ResourceID)
	}
	return ids
}

// tpp returns the emulator's record of the client's TPP.
func (c *tppClient) tpp(t testing.TB) *tpp {
	t.Helper()
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	tp := c.s.tpps[fingerprint(c.creds.Certificate)]
	require.NotNil(t, tp)
	return tp
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// txPage is a transactions answer.
type txPage struct {
	Transactions struct {
		Booked  []transactionJSON `json:"booked"`
		Pending []transactionJSON `json:"pending"`
		Links   map[string]link   `json:"_links"`
	} `json:"transactions"`
}

func decodeTxPage(t testing.TB, r *response) txPage {
	t.Helper()
	var p txPage
	require.NoError(t, json.Unmarshal(r.body, &p), string(r.body))
	return p
}

// bookedDates returns the booking dates of a transactions answer.
func bookedDates(t testing.TB, r *response) []string {
	t.Helper()
	p := decodeTxPage(t, r)
	out := make([]string, 0, len(p.Transactions.Booked))
	for _, b := range p.Transactions.Booked {
		out = append(out, b.BookingDate)
	}
	return out
}

func encodeCert(der []byte) string { return base64.StdEncoding.EncodeToString(der) }

// soleStore returns the sandbox of the one TPP that has called s (each TPP
// has its own, views.go): before any call a new default store (what the
// first TPP will get), nil when several TPPs have called. Needs s.mu.
func (s *Server) soleStore() *store {
	switch len(s.stores) {
	case 0:
		return newDefaultStore(s.now(), s.data)
	case 1:
	default:
		return nil
	}
	for _, st := range s.stores {
		return st
	}
	return nil
}
