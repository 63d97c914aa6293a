package client

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// orgCreds returns credentials for key i whose certificate names the
// organisation orgID (organizationIdentifier) with common name cn.
func orgCreds(t *testing.T, i int, orgID, cn string) *signing.Credentials {
	t.Helper()
	key := testKey(i)
	now := time.Now()
	subject := pkix.Name{CommonName: cn, Organization: []string{"Test TPP AS"}, Country: []string{"NO"}}
	if orgID != "" {
		subject.ExtraNames = []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: orgID}}
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(5000 + serial.Add(1)), Subject: subject,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &signing.Credentials{Certificate: cert, Key: key}
}

// Every spelling of one base URL is one bank: one scope, so one budget
// and one journal. Another host, port, scheme or path is another bank.
func TestScopeOneBankManySpellings(t *testing.T) {
	t.Parallel()
	creds := orgCreds(t, 0, "PSDNO-FSA-1", "TPP")
	scope := func(base string, opts ...Option) string {
		t.Helper()
		c, err := New(base, creds, opts...)
		require.NoError(t, err, base)
		return c.Scope()
	}
	same := map[string][]string{
		"https://psd2.bank.example/api": {
			"https://psd2.bank.example:443/api", "https://psd2.bank.example./api", "https://PSD2.Bank.Example/api/",
			"HTTPS://psd2.bank.example/%61pi", "https://psd2.bank.example//api", "https://psd2.bank.example/api//",
			"https://psd2.bank.example/./api", "https://psd2.bank.example/x/../api", "https://psd2.bank.example/%2e/api",
		},
		"http://localhost:8080/api": {"http://127.0.0.1:8080/api", "http://LOCALHOST:8080/api", "http://[::1]:8080/api"},
		"http://localhost/api":      {"http://127.0.0.1:80/api"},
		"https://b.example/a%2Fb":   {"https://b.example/a%2fb"},
	}
	for base, spellings := range same {
		want := scope(base)
		for _, s := range spellings {
			assert.Equal(t, want, scope(s), "%s and %s are one bank", base, s)
		}
	}
	distinct := []string{
		"https://psd2.bank.example/api", "https://psd2.bank.example:8443/api", "https://other.example/api",
		"https://psd2.bank.example/api2", "https://psd2.bank.example", "http://localhost:8080/api",
		"http://localhost:8081/api", "https://b.example/a%2Fb", "https://b.example/a/b",
	}
	seen := map[string]string{}
	for _, base := range distinct {
		s := scope(base)
		if prev, ok := seen[s]; ok {
			t.Errorf("%s and %s share a scope", prev, base)
		}
		seen[s] = base
	}

	// A bank named explicitly is one bank, whatever URL reaches it.
	named := scope("https://proxy.tpp.example/dnb", WithBank("dnb"))
	assert.Equal(t, named, scope("https://psd2.bank.example/api", WithBank("dnb")))
	assert.NotEqual(t, named, scope("https://psd2.bank.example/api", WithBank("nordea")))
	assert.NotEqual(t, named, scope("https://psd2.bank.example/api"))
	for _, bad := range []string{"", "a\nb", "bank\x7f", string(make([]byte, 201))} {
		_, err := New("https://psd2.bank.example/api", creds, WithBank(bad))
		assert.Error(t, err, "%q", bad)
	}
}

// A link may spell the bank's host another way; it is sent to the host
// as the base URL spells it.
func TestResolveCanonicalHost(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://psd2.bank.example/api")
	for _, href := range []string{"https://psd2.bank.example:443/api/v1/x", "https://PSD2.bank.example./api/v1/x"} {
		u, err := c.resolve(href, nil)
		require.NoError(t, err, href)
		assert.Equal(t, "psd2.bank.example", u.Host)
		assert.Equal(t, "/api/v1/x", u.Path)
	}
}

// SetCredentials accepts a renewal of the TPP's certificate (same
// organisation, new key and subject) and refuses another organisation's
// with an *IdentityError, keeping the scope and the current credentials.
func TestSetCredentialsOtherTPPRefused(t *testing.T) {
	t.Parallel()
	first := orgCreds(t, 0, "PSDNO-FSA-1", "TPP 2025")
	c, err := New("https://psd2.bank.example/api", first)
	require.NoError(t, err)
	scope := c.Scope()

	renewal := orgCreds(t, 1, "PSDNO-FSA-1", "TPP 2026")
	require.NoError(t, c.SetCredentials(renewal))
	assert.Equal(t, scope, c.Scope())
	assert.Same(t, renewal, c.Credentials())

	other := orgCreds(t, 2, "PSDNO-FSA-2", "TPP 2026")
	err = c.SetCredentials(other)
	var ie *IdentityError
	require.ErrorAs(t, err, &ie)
	assert.ErrorIs(t, err, ErrOtherTPP)
	assert.Equal(t, "org:PSDNO-FSA-1", ie.Have)
	assert.Equal(t, "org:PSDNO-FSA-2", ie.Got)
	assert.Same(t, renewal, c.Credentials(), "the current credentials stay")
	assert.Equal(t, scope, c.Scope())

	// Without organizationIdentifier the organisation decides.
	noOrg, err := New("https://psd2.bank.example/api", orgCreds(t, 0, "", "TPP a"))
	require.NoError(t, err)
	require.NoError(t, noOrg.SetCredentials(orgCreds(t, 1, "", "TPP b")))
	require.ErrorIs(t, noOrg.SetCredentials(orgCreds(t, 2, "PSDNO-FSA-1", "TPP a")), ErrOtherTPP)
}

// A credentials source that answers another organisation's certificate
// is refused before anything is sent; its identity was fixed by its
// first answer, which Scope asks for.
func TestCredentialsSourceOtherTPPRefused(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{}`)) })
	first, other := orgCreds(t, 0, "PSDNO-FSA-1", "TPP"), orgCreds(t, 1, "PSDNO-FSA-2", "TPP")
	current := first
	c, err := New(b.URL, nil, WithCredentialsSource(func(context.Context) (*signing.Credentials, error) { return current, nil }), testDefaults)
	require.NoError(t, err)
	scope := c.Scope()
	current = other
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.ErrorIs(t, err, ErrOtherTPP)
	require.ErrorIs(t, err, ErrNotSent)
	assert.Zero(t, b.count.Load())
	assert.Equal(t, scope, c.Scope())
}

// A credentials source that hangs (a secret store that stopped
// answering) never holds a call for ever, even on a context without a
// deadline: Scope's question to it, which fixes the TPP's identity and
// is made outside any call's context, gives up after identityWait
// (shorter here). On the code before, Scope asked it on
// context.Background(), and every call waited in Scope for ever.
func TestHungCredentialsSourceHoldsNoCall(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{}`)) })
	var hung atomic.Bool
	hung.Store(true)
	creds := testCreds(t, 0)
	src := func(ctx context.Context) (*signing.Credentials, error) {
		if hung.Load() {
			<-ctx.Done() // the secret store does not answer
			return nil, ctx.Err()
		}
		return creds, nil
	}
	c, err := New(b.URL, nil, WithCredentialsSource(src), WithCallTimeout(200*time.Millisecond), testDefaults)
	require.NoError(t, err)
	c.identityWait = 100 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		_, err := c.Do(context.Background(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrNotSent)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the source was given up on")
	case <-time.After(time.Minute):
		t.Fatal("the call waits on the hung credentials source")
	}
	assert.Zero(t, b.count.Load(), "nothing was sent")

	hung.Store(false)
	_, err = c.Do(context.Background(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.NoError(t, err, "the source answers again")
	assert.EqualValues(t, 1, b.count.Load())
}
