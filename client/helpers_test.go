package client

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// Test keys are generated once per package: 1024 bits keep -race fast (the
// rule on 2048 bits applies to what the bank accepts, not to tests).
var (
	keysOnce sync.Once
	keys     []*rsa.PrivateKey
)

func testKey(i int) *rsa.PrivateKey {
	keysOnce.Do(func() {
		for range 4 {
			k, err := rsa.GenerateKey(rand.Reader, 1024)
			if err != nil {
				panic(err)
			}
			keys = append(keys, k)
		}
	})
	return keys[i]
}

var serial atomic.Int64

// newCert makes a self-signed certificate for key i valid in [from, until).
func newCert(t testing.TB, i int, from, until time.Time) *x509.Certificate {
	t.Helper()
	return certFor(t, testKey(i), from, until)
}

// certFor makes a self-signed certificate for key valid in [from, until).
func certFor(t testing.TB, key *rsa.PrivateKey, from, until time.Time) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1000 + serial.Add(1)),
		Subject:      pkix.Name{CommonName: "TPP test", Organization: []string{"Test TPP AS"}},
		NotBefore:    from,
		NotAfter:     until,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  nil,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

// testCreds returns credentials for key i valid for a year around now.
func testCreds(t testing.TB, i int) *signing.Credentials {
	t.Helper()
	now := time.Now()
	return &signing.Credentials{Certificate: newCert(t, i, now.Add(-24*time.Hour), now.Add(365*24*time.Hour)), Key: testKey(i)}
}

// fastRetry keeps retry tests quick.
var fastRetry = RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}

// recorded is one request as the test server saw it.
type recorded struct {
	URL       string // path and query as received
	Header    http.Header
	Body      []byte
	VerifyErr error // nil when the signature and Digest verified
}

// bank is an httptest server that counts requests, verifies every
// signature with the certificate the request carries (signing.Verify) and
// hands the request to handle (n is 1-based).
type bank struct {
	*httptest.Server
	count  atomic.Int64
	mu     sync.Mutex
	reqs   []recorded
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

func newBank(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *bank {
	b := &bank{handle: handle}
	b.Server = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.Close)
	return b
}

// downBank is a bank that answers 503 until up is set, then {}.
func downBank(t testing.TB) (b *bank, up *atomic.Bool) {
	up = new(atomic.Bool)
	b = newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if up.Load() {
			_, _ = w.Write([]byte(`{}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	return b, up
}

func (b *bank) serve(w http.ResponseWriter, r *http.Request) {
	n := int(b.count.Add(1))
	body, _ := io.ReadAll(r.Body)
	rec := recorded{URL: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, VerifyErr: verifyRequest(r, body)}
	b.mu.Lock()
	b.reqs = append(b.reqs, rec)
	b.mu.Unlock()
	if b.handle == nil {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
		return
	}
	b.handle(w, r, n)
}

func (b *bank) requests() []recorded {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]recorded(nil), b.reqs...)
}

// verifyRequest checks a request the way the bank does: the signature with
// the certificate in TPP-Signature-Certificate, its keyId, and the Digest.
func verifyRequest(r *http.Request, body []byte) error {
	der, err := base64.StdEncoding.DecodeString(r.Header.Get("TPP-Signature-Certificate"))
	if err != nil {
		return err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	p, err := signing.ParseSignature(r.Header.Get("Signature"))
	if err != nil {
		return err
	}
	if p.KeyID != signing.KeyID(cert) {
		return errors.New("keyId does not name the certificate")
	}
	if err := signing.Verify(r, cert.PublicKey); err != nil {
		return err
	}
	if len(body) > 0 {
		return signing.VerifyDigest(r.Header.Get("Digest"), body)
	}
	return nil
}

// testRedirectURI is the default TPP-Redirect-URI of newTestClient.
const testRedirectURI = "https://tpp.example/cb"

// testDefaults is the default per-call option of the tests' clients.
var testDefaults = WithDefaults(WithRedirectURI(testRedirectURI))

// newTestClient returns a client for b signing with key 0, sending
// testRedirectURI by default.
func newTestClient(t testing.TB, baseURL string, opts ...Option) *Client {
	t.Helper()
	c, err := New(baseURL, testCreds(t, 0), append([]Option{WithRetryPolicy(fastRetry), WithDefaults(WithRedirectURI(testRedirectURI))}, opts...)...)
	require.NoError(t, err)
	return c
}

// hangUp closes the connection without an answer, after the request body
// was read.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// logBuffer is a concurrency-safe buffer for a slog handler.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) count(s string) int { return strings.Count(l.String(), s) }

func debugLogger(l *logBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// tlsCert turns test credentials into a tls.Certificate (a QWAC).
func tlsCert(c *signing.Credentials) tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.Certificate.Raw}, PrivateKey: c.Key, Leaf: c.Certificate}
}

// headersOf returns the headers opts set on a call.
func headersOf(opts ...RequestOption) (http.Header, error) {
	c, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	return c.headers(0), nil
}
