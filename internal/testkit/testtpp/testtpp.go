package testtpp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// BaseURL is the bank of the httpmock unit tests: [MockClient] sends there.
const BaseURL = "https://bank.example/api"

// organizationIdentifier is the OID of the X.520 organizationIdentifier
// attribute, which carries a PSD2 TPP's authorisation number.
var organizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// key is generated once per test binary: RSA key generation is slow, above
// all under -race.
var key = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// serial numbers the certificates of one test binary.
var serial atomic.Int64

// Key returns the throwaway 2048-bit RSA key of the test binary, generated
// on first use. Every certificate of [Credentials] and of [Server]'s TPPs
// is for this key.
func Key(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := key()
	require.NoError(t, err)
	return k
}

// Credentials returns throwaway credentials for [Key]: a self-signed
// certificate with common name name, organisation "Test TPP AS" and an
// organizationIdentifier, valid from an hour ago for a year.
func Credentials(t testing.TB, name string) *signing.Credentials {
	t.Helper()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1000 + serial.Add(1)),
		Subject: pkix.Name{CommonName: name, Organization: []string{"Test TPP AS"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: organizationIdentifier, Value: "PSDNO-FSA-TEST1"}}},
		NotBefore: now.Add(-time.Hour),
		NotAfter:  now.Add(365 * 24 * time.Hour),
		KeyUsage:  x509.KeyUsageDigitalSignature,
	}
	return SelfSigned(t, tmpl)
}

// SelfSigned returns credentials for [Key] whose certificate is tmpl,
// signed by itself: for tests that need a certificate [Credentials] does
// not make (another organizationIdentifier, none, another validity). A
// tmpl without a serial number gets the next one of the test binary.
func SelfSigned(t testing.TB, tmpl *x509.Certificate) *signing.Credentials {
	t.Helper()
	k := Key(t)
	if tmpl.SerialNumber == nil {
		tmpl.SerialNumber = big.NewInt(1000 + serial.Add(1))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &signing.Credentials{Certificate: cert, Key: k}
}

// Clock is a settable time source, safe for concurrent use, that tests
// share between the emulator, the client and the services
// (emulator.WithClock(c.Now), client.WithClock(c.Now)).
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock standing at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set puts the clock at now.
func (c *Clock) Set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// RedirectURI is the TPP-Redirect-URI every client of this package sends
// by default (client.WithDefaults); a test's own WithRedirectURI replaces
// it for a call.
const RedirectURI = "https://tpp.example/cb"

// MockClient returns a client on [BaseURL], signing with [Credentials],
// whose HTTP client is activated with httpmock.ActivateNonDefault; opts
// come after the HTTP client option. Register responders with the
// package-level httpmock functions (httpmock.RegisterResponder); they are
// reset when the test ends.
//
// httpmock.ActivateNonDefault installs the package-wide
// httpmock.DefaultTransport, so tests using MockClient must not run in
// parallel with each other.
func MockClient(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(httpmock.DeactivateAndReset)
	c, err := client.New(BaseURL, Credentials(t, "Test TPP"), append([]client.Option{client.WithHTTPClient(hc), client.WithDefaults(client.WithRedirectURI(RedirectURI))}, opts...)...)
	require.NoError(t, err)
	return c
}

// Server starts an emulator for one test, closed when the test ends. Its
// TPP certificates are for [Key] (emulator.WithTPPKey), so that no test
// waits for a key of its own; opts come after that option.
func Server(t testing.TB, opts ...emulator.Option) *emulator.Server {
	t.Helper()
	s := emulator.NewServer(append([]emulator.Option{emulator.WithTPPKey(Key(t))}, opts...)...)
	t.Cleanup(s.Close)
	return s
}

// NewClient registers a TPP called name on s and returns its client,
// sending over s's HTTP client; opts come after that option.
func NewClient(t testing.TB, s *emulator.Server, name string, opts ...client.Option) *client.Client {
	t.Helper()
	creds, err := s.NewTPP(name)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, append([]client.Option{client.WithHTTPClient(s.Client()), client.WithDefaults(client.WithRedirectURI(RedirectURI))}, opts...)...)
	require.NoError(t, err)
	return c
}

// Emulator starts a [Server] with opts and returns it with the client of
// one TPP registered on it ([NewClient] with the name "Test TPP").
func Emulator(t testing.TB, opts ...emulator.Option) (*emulator.Server, *client.Client) {
	t.Helper()
	s := Server(t, opts...)
	return s, NewClient(t, s, "Test TPP")
}

// CountingClient returns a client of a TPP called name on a stub bank
// that answers every request 200 with body as JSON, and the number of
// requests that reached the bank: tests of what a service refuses
// before sending check that it stays 0. opts come after the default
// redirect URI.
func CountingClient(t testing.TB, name, body string, opts ...client.Option) (*client.Client, *atomic.Int32) {
	t.Helper()
	n := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, Credentials(t, name), append([]client.Option{client.WithDefaults(client.WithRedirectURI(RedirectURI))}, opts...)...)
	require.NoError(t, err)
	return c, n
}
