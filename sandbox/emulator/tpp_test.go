package emulator

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// orgID returns the organizationIdentifier of c's certificate.
func orgID(t *testing.T, c *tppClient) string {
	t.Helper()
	for _, n := range c.creds.Certificate.Subject.Names {
		if n.Type.Equal(oidOrganizationIdentifier) {
			return n.Value.(string)
		}
	}
	t.Fatal("no organizationIdentifier")
	return ""
}

// TestContactInformation checks the TPP dialogue's answers on the wire.
func TestContactInformation(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := newTPPClient(t, s, "TPP A"), newTPPClient(t, s, "TPP B")
	pathA := "/v1/tpps/" + orgID(t, a) + "/contact-information"

	r := a.get(pathA)
	assert.Equal(t, http.StatusNotFound, r.status, "GET before any PUT")
	code, _ := r.problem(t)
	assert.Equal(t, "RESOURCE_UNKNOWN", code)

	for name, body := range map[string]string{
		"no email":      `{}`,
		"not a string":  `{"email":5}`,
		"display name":  `{"email":"A <a@tpp-a.example>"}`,
		"single label":  `{"email":"a@localhost"}`,
		"not an object": `["a@tpp-a.example"]`,
	} {
		r := a.do(http.MethodPut, pathA, []byte(body))
		assert.Equal(t, http.StatusBadRequest, r.status, name)
		code, _ := r.problem(t)
		assert.Equal(t, "FORMAT_ERROR", code, name)
	}

	r = a.do(http.MethodPut, pathA, []byte(`{"email":"psd2@tpp-a.example"}`))
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.JSONEq(t, `{"email":"psd2@tpp-a.example"}`, string(r.body))
	r = a.get(pathA)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"email":"psd2@tpp-a.example"}`, string(r.body))

	for method, r := range map[string]*response{
		http.MethodGet: b.get(pathA),
		http.MethodPut: b.do(http.MethodPut, pathA, []byte(`{"email":"x@tpp-b.example"}`)),
	} {
		assert.Equal(t, http.StatusForbidden, r.status, method)
		code, path := r.problem(t)
		assert.Equal(t, "FORBIDDEN", code)
		assert.Equal(t, "tppId", path)
	}
	r = a.get(pathA)
	assert.JSONEq(t, `{"email":"psd2@tpp-a.example"}`, string(r.body), "B did not change A's address")
	assert.Equal(t, http.StatusForbidden, a.get("/v1/tpps/PSDNO-FSA-OTHER/contact-information").status)
}

// A TPP whose certificate has no organizationIdentifier has no tppId.
func TestContactInformationWithoutOrganizationIdentifier(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "TPP A")
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(99), Subject: pkix.Name{CommonName: "No org id"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.ca.cert, c.creds.Key.Public(), s.ca.key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	s.Trust(cert)
	c.creds.Certificate = cert
	c.signer, err = signing.NewSigner(c.creds.Key, signing.KeyID(cert))
	require.NoError(t, err)
	for _, id := range []string{"No org id", "CN=No org id", "PSDNO-FSA-1"} {
		r := c.get("/v1/tpps/" + url.PathEscape(id) + "/contact-information")
		if !assert.NotEqual(t, http.StatusBadRequest, r.status, string(r.body)) {
			continue
		}
		assert.Equal(t, http.StatusForbidden, r.status, id)
	}
}
