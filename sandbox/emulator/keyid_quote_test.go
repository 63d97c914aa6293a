package emulator

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

	"github.com/tppkit/psd2/signing"
)

// TestProfileKeyIDQuotedIssuer: an issuer whose name has a double quote
// (O=Co "Ltd") is written by the SDK's signer with RFC 2253's hex pair
// \22 between the keyId's quotes (signing.QuoteParam), the form the
// Signature value carries on the wire. A bank that verifies only one
// rendering (KeyIDRFC2253, KeyIDOpenSSL) takes that wire form of its
// rendering, as the default profile does, and still refuses the other.
func TestProfileKeyIDQuotedIssuer(t *testing.T) {
	t.Parallel()
	key, err := testKey()
	require.NoError(t, err)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x1F2E),
		Subject: pkix.Name{CommonName: "Quoted TPP", Organization: []string{`Co "Ltd"`}, Country: []string{"NO"},
			// organizationIdentifier: the two renderings differ on it
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "NTRNO-987654321"}}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	require.Contains(t, signing.KeyID(cert), `\"`)
	require.Contains(t, signing.KeyIDOpenSSL(cert), `\"`)
	require.NotEqual(t, signing.KeyID(cert), signing.KeyIDOpenSSL(cert))

	for _, tc := range []struct {
		forms        KeyIDForms
		strict, ossl int
	}{
		{KeyIDAnyForm, http.StatusOK, http.StatusOK},
		{KeyIDRFC2253, http.StatusOK, http.StatusBadRequest},
		{KeyIDOpenSSL, http.StatusBadRequest, http.StatusOK},
	} {
		s := startServer(t, WithProfile(Profile{KeyIDs: tc.forms}))
		s.Trust(cert)
		c := newTPPClient(t, s, "unused")
		c.creds.Certificate = cert
		var got []int
		for _, keyID := range []string{signing.KeyID(cert), signing.KeyIDOpenSSL(cert)} {
			c.signer, err = signing.NewSigner(key, keyID)
			require.NoError(t, err)
			r := c.get("/v1/sandbox/customers", after(func(r *http.Request) {
				require.Contains(t, r.Header.Get("Signature"), `\22`, "the wire form")
				require.False(t, strings.Contains(r.Header.Get("Signature"), `\"`))
			}))
			got = append(got, r.status)
		}
		assert.Equal(t, []int{tc.strict, tc.ossl}, got, "profile %d", tc.forms)
	}
}
