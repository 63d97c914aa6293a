package emulator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// renewed issues a second certificate from the emulator's CA with the
// same subject as c's (so the same organizationIdentifier), a new serial
// and the same key, registers it and returns a client signing with it.
func renewed(t *testing.T, c *tppClient) *tppClient {
	t.Helper()
	old := c.creds.Certificate
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		RawSubject:   old.RawSubject,
		NotBefore:    old.NotBefore,
		NotAfter:     old.NotAfter.Add(time.Hour),
		KeyUsage:     old.KeyUsage,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.s.ca.cert, c.creds.Key.Public(), c.s.ca.key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	require.NotEqual(t, old.SerialNumber, cert.SerialNumber)
	c.s.Trust(cert)
	creds := &signing.Credentials{Certificate: cert, Chain: c.creds.Chain, Key: c.creds.Key}
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(cert))
	require.NoError(t, err)
	return &tppClient{t: t, s: c.s, creds: creds, signer: signer, hc: c.hc}
}

// TestPSUIDSurvivesCertificateRenewal: PSU-ID is unique per TPP and bank
// and unchanging (docs/interface.md section 5.9); a TPP that renews its
// certificate keeps its PSUs' PSU-IDs and sessions, another TPP does not
// share them.
func TestPSUIDSurvivesCertificateRenewal(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c1 := newTPPClient(t, s, "Rotating TPP")
	psuID := c1.login(CustomerKari, "sid-1")
	psu := psuHeaders(psuID, "sid-1")
	want := c1.accountIDs(psu...)

	c2 := renewed(t, c1)
	assert.Equal(t, c1.tpp(t).id, c2.tpp(t).id, "one organisation, one TPP")
	assert.Equal(t, want, c2.accountIDs(psu...), "the session lives on with the new certificate")

	// A new SCA with the new certificate gives the same PSU-ID.
	assert.Equal(t, psuID, c2.login(CustomerKari, "sid-2"))
	assert.Equal(t, want, c2.accountIDs(psuHeaders(psuID, "sid-2")...))

	// Another organisation gets its own PSU-ID and cannot use this one.
	other := newTPPClient(t, s, "Other TPP")
	r := other.get("/v1/accounts", psuHeaders(psuID, "sid-2")...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	assert.NotEmpty(t, r.scaRedirect(t))
	assert.NotEqual(t, psuID, other.login(CustomerKari, "sid-3"))
}

func TestTPPIdentity(t *testing.T) {
	t.Parallel()
	cert := func(subject pkix.Name) *x509.Certificate {
		tmpl := &x509.Certificate{SerialNumber: randomSerial(), Subject: subject,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
		require.NoError(t, err)
		c, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return c
	}
	org := func(cn, id string) pkix.Name {
		return pkix.Name{CommonName: cn, ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: id}}}
	}
	a1, a2 := cert(org("TPP A", "PSDNO-FSA-987654321")), cert(org("TPP A (renamed)", "PSDNO-FSA-987654321"))
	b := cert(org("TPP A", "PSDNO-FSA-123456789"))
	assert.Equal(t, "org:PSDNO-FSA-987654321", tppIdentity(a1))
	assert.Equal(t, tppIdentity(a1), tppIdentity(a2), "same organizationIdentifier, same TPP")
	assert.NotEqual(t, tppIdentity(a1), tppIdentity(b))

	n1, n2 := cert(pkix.Name{CommonName: "No Org TPP", Country: []string{"NO"}}), cert(pkix.Name{CommonName: "No Org TPP", Country: []string{"NO"}})
	assert.Equal(t, "subject:CN=No Org TPP,C=NO", tppIdentity(n1))
	assert.Equal(t, tppIdentity(n1), tppIdentity(n2), "without organizationIdentifier the subject decides")
	assert.NotEqual(t, tppIdentity(n1), tppIdentity(cert(pkix.Name{CommonName: "Another TPP"})))

	e1, e2 := cert(pkix.Name{}), cert(pkix.Name{})
	assert.Equal(t, "cert:"+fingerprint(e1), tppIdentity(e1))
	assert.NotEqual(t, tppIdentity(e1), tppIdentity(e2), "an empty subject: each certificate on its own")
}
