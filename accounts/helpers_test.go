package accounts_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
)

// baseURL is the bank of the httpmock unit tests.
const baseURL = testtpp.BaseURL

// Ids of the platform documents in testdata.
const (
	accountID     = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	cardAccountID = "enc!!2fl-u6ZSBrjtRsBvWmJhihLWwMQ2pIdzKcOMUBLTmVc="
	psuID         = "0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11"
	sessionID     = "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"
	redirectURI   = "https://tpp.example/callback"
	psuIP         = "192.0.2.10"
)

// newMockService returns a Service on baseURL whose HTTP client is
// activated with httpmock. httpmock.ActivateNonDefault installs the
// package-wide DefaultTransport, so tests using it do not run in parallel.
// Retries are off so that every answer is seen once.
func newMockService(t *testing.T, opts ...budget.Option) *accounts.Service {
	t.Helper()
	c := testtpp.MockClient(t, client.WithRetryPolicy(client.RetryPolicy{}))
	return newService(t, c, opts...)
}

// newService returns a Service on c, whose budget is made with opts first.
func newService(t testing.TB, c *client.Client, opts ...budget.Option) *accounts.Service {
	t.Helper()
	_, err := budget.New(c, opts...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return svc
}

// testdata returns a file of testdata.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// respond registers a responder for method and url (a path under baseURL,
// escaped as sent) answering status with the testdata file name (or no
// body when name is ""), after check has looked at the request.
func respond(t *testing.T, method, path string, status int, name string, check func(*http.Request)) {
	t.Helper()
	var body []byte
	if name != "" {
		body = testdata(t, name)
	}
	httpmock.RegisterResponder(method, baseURL+path, func(req *http.Request) (*http.Response, error) {
		if check != nil {
			check(req)
		}
		resp := httpmock.NewBytesResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
}

// calls returns how many requests reached the mock bank.
func calls() int { return httpmock.GetTotalCallCount() }

// psuPresent are the options of a call with the PSU present.
func psuPresent() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})}
}

// psuAbsent are the options of a call without the PSU present.
func psuAbsent() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID})}
}

// assertSigned checks the headers every request carries (docs/interface.md section 4, 5).
func assertSigned(t *testing.T, req *http.Request) {
	t.Helper()
	_, err := uuid.Parse(req.Header.Get("X-Request-ID"))
	assert.NoError(t, err, "X-Request-ID is a UUID")
	assert.NotEmpty(t, req.Header.Get("Date"))
	assert.NotEmpty(t, req.Header.Get("TPP-Signature-Certificate"))
	sig, err := signing.ParseSignature(req.Header.Get("Signature"))
	if assert.NoError(t, err) {
		assert.Equal(t, signing.Algorithm, sig.Algorithm)
	}
	assert.Contains(t, req.Header.Get("X-Accept-Fix"), "amount-as-string")
}

// assertPSUHeaders checks the session headers of psuPresent (ip true) or
// psuAbsent.
func assertPSUHeaders(t *testing.T, req *http.Request, ip bool) {
	t.Helper()
	assert.Equal(t, psuID, req.Header.Get("PSU-ID"))
	assert.Equal(t, sessionID, req.Header.Get("TPP-Session-ID"))
	assert.Equal(t, redirectURI, req.Header.Get("TPP-Redirect-URI"))
	if ip {
		assert.Equal(t, psuIP, req.Header.Get("PSU-IP-Address"))
	} else {
		assert.Empty(t, req.Header.Get("PSU-IP-Address"))
	}
	assert.Empty(t, req.Header.Get("PSU-Corporate-ID"))
}

// requestLog counts the requests an emulator served, by path suffix, from
// its one-line-per-request log.
type requestLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *requestLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(p))
	return len(p), nil
}

// bank is an emulator with a TPP client and a Service on it.
type bank struct {
	s   *emulator.Server
	c   *client.Client
	svc *accounts.Service
	log *requestLog
}

// startBank starts an emulator (with clk as its and the client's clock
// when not nil) and a Service signing as a new TPP.
func startBank(t *testing.T, clk *testtpp.Clock, opts ...budget.Option) *bank {
	t.Helper()
	log := &requestLog{}
	eopts := []emulator.Option{emulator.WithLogger(slog.New(slog.NewTextHandler(log, nil)))}
	copts := []client.Option{}
	if clk != nil {
		eopts = append(eopts, emulator.WithClock(clk.Now))
		copts = append(copts, client.WithClock(clk.Now))
	}
	s := testtpp.Server(t, eopts...)
	c := testtpp.NewClient(t, s, "Accounts test AISP", copts...)
	return &bank{s: s, c: c, svc: newService(t, c, opts...), log: log}
}

// consent runs the bank-offered consent of customer: StartConsent with
// the options of an sca.Flow, the PSU's SCA at the emulator, and the
// callback parsed into a Session.
func (b *bank) consent(ctx context.Context, t *testing.T, customer, agreementID string) *sca.Session {
	t.Helper()
	flow, err := sca.NewFlow(redirectURI)
	require.NoError(t, err)
	pending, opt, err := flow.Start("user-" + customer)
	require.NoError(t, err)
	consent, err := b.svc.StartConsent(ctx, opt)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(consent.SCARedirect(), strings.TrimSuffix(b.s.URL, "/api")+"/tap-sandbox/"), "scaRedirect on the emulator's SCA page")
	var cb interface{ String() string }
	if agreementID == "" {
		u, err := b.s.Control().Authorize(ctx, consent.SCARedirect(), customer)
		require.NoError(t, err)
		cb = u
	} else {
		u, err := b.s.Control().AuthorizeCorporate(ctx, consent.SCARedirect(), customer, agreementID)
		require.NoError(t, err)
		cb = u
	}
	sess, err := flow.ParseCallback(pending, cb.String())
	require.NoError(t, err)
	require.Equal(t, pending.TPPSessionID, sess.TPPSessionID)
	return sess
}

// present returns the options of a call in sess with the PSU present.
func present(sess *sca.Session) []client.RequestOption {
	return []client.RequestOption{sess.RequestOptions(&client.PSU{IPAddress: psuIP}), client.WithRedirectURI(redirectURI)}
}

// absent returns the options of a call in sess without the PSU.
func absent(sess *sca.Session) []client.RequestOption {
	return []client.RequestOption{sess.RequestOptions(nil), client.WithRedirectURI(redirectURI)}
}

// firstAccount runs the consent of customer, lists the accounts in the
// new session and returns the session and the first account's id.
func (b *bank) firstAccount(ctx context.Context, t *testing.T, customer string) (*sca.Session, string) {
	t.Helper()
	sess := b.consent(ctx, t, customer, "")
	accs, err := b.svc.List(ctx, nil, present(sess)...)
	require.NoError(t, err)
	require.NotEmpty(t, accs)
	return sess, accs[0].ResourceID
}
