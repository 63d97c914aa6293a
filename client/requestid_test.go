package client

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

func TestWithRequestIDFreeForm(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		"3f0a8c1e-7d0b-4c41-9a4e-2b7f0c3d4e5f", "request-1", "x", "order 4711/1",
		"01HZY3M8Q9K6V4T2R7N5P0W1XA", strings.Repeat("r", MaxRequestIDLen), `!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`,
	} {
		c, err := applyOptions([]RequestOption{WithRequestID(id)})
		require.NoError(t, err, id)
		assert.Equal(t, id, c.requestID)
	}
	for _, id := range []string{
		"", strings.Repeat("r", MaxRequestIDLen+1), "ordre-ø", "a\tb", "a\nb", "a\x00b", "a\x7fb", " lead", "trail ",
	} {
		_, err := applyOptions([]RequestOption{WithRequestID(id)})
		assert.Error(t, err, "%q", id)
	}
}

// quotedCreds are self-signed credentials whose issuer has a double quote,
// a backslash, organizationIdentifier and a non-ASCII letter.
func quotedCreds(t *testing.T) *signing.Credentials {
	t.Helper()
	key := testKey(1)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x9FA1),
		Subject: pkix.Name{
			CommonName: `Quote "TPP" \ CA`, Organization: []string{`Smith, Jones + Co "Ltd" Tromsø`}, Country: []string{"NO"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "PSDNO-FSA-1"}},
		},
		NotBefore: now.Add(-time.Hour),
		NotAfter:  now.Add(time.Hour),
		KeyUsage:  x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &signing.Credentials{Certificate: cert, Key: key}
}

// TestEmulatorFreeFormRequestIDAndQuotedKeyID: against the emulator, a
// certificate whose issuer has a double quote signs (client.New used to
// refuse it, and WithKeyID too), in the default strict form and in
// OpenSSL's form, and a request id that is not a UUID goes through and
// comes back.
func TestEmulatorFreeFormRequestIDAndQuotedKeyID(t *testing.T) {
	t.Parallel()
	creds := quotedCreds(t)
	s := emulator.NewServer(emulator.WithTrustedCertificates(creds.Certificate))
	t.Cleanup(s.Close)
	kid := signing.KeyIDOpenSSL(creds.Certificate)
	require.Contains(t, kid, `\"Ltd\"`)
	for i, opts := range [][]Option{nil, {WithKeyID(kid)}} {
		var sent []string
		base := s.Client().Transport
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			sent = append(sent, r.Header.Get("Signature"))
			return base.RoundTrip(r)
		})}
		c, err := New(s.URL, creds, append([]Option{testDefaults, WithHTTPClient(hc)}, opts...)...)
		require.NoError(t, err)
		id := "order 4711/" + string(rune('a'+i))
		resp, err := c.Do(t.Context(), listCustomers, nil, WithRequestID(id))
		require.NoError(t, err)
		assert.Equal(t, id, resp.RequestID)
		assert.Equal(t, id, resp.Header.Get("X-Request-ID"))
		require.Len(t, sent, 1)
		p, err := signing.ParseSignature(sent[0])
		require.NoError(t, err)
		want := signing.KeyID(creds.Certificate)
		if opts != nil {
			want = kid
		}
		assert.Equal(t, signing.QuoteParam(want), p.KeyID, "the keyId as written between the quotes")
		assert.Contains(t, p.KeyID, `\22Ltd\22`, "RFC 2253's escaped quote in its hex form")
		assert.True(t, signing.MatchKeyID(p.KeyID, creds.Certificate))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
