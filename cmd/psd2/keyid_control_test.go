package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/signing"
)

// TestKeyIDPrintsNoControlCharacters: a certificate whose names hold
// control characters (an escape sequence, a bell, a line break) or a
// bidirectional override is printed by keyid's and probe's text with
// those characters escaped: one line per field, nothing that drives the
// operator's terminal, and no line of the certificate's own making (a
// subject could print "validity: ... valid now" under the real one).
// keyid printed the names as they came. --json keeps the exact keyId.
func TestKeyIDPrintsNoControlCharacters(t *testing.T) {
	t.Parallel()
	now := time.Now()
	name := pkix.Name{CommonName: "Evil\x1b]0;owned\x07\x1b[31mCA\r\nvalidity:  forged", Organization: []string{"O\u202eLTR"}}
	creds := testtpp.SelfSigned(t, &x509.Certificate{SerialNumber: big.NewInt(5), Subject: name,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature})
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600))
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(bank.Close)

	for _, args := range [][]string{
		{"keyid", "-cert", certFile},
		{"probe", "-url", bank.URL + "/api", "-cert", certFile, "-key", keyFile},
	} {
		out, errOut, _ := psd2(t, args...)
		for _, c := range []string{"\x1b", "\x07", "\r", "\u202e"} {
			assert.NotContains(t, out+errOut, c, "%s: %q", args[0], c)
		}
		assert.NotContains(t, out, "\nvalidity:  forged", args[0])
		assert.False(t, strings.Contains(out, "\nX") || strings.Contains(out, "\nvalidity:  forged"), "%s: a line of the certificate's making", args[0])
	}
	out, errOut, code := psd2(t, "keyid", "--json", "-cert", certFile)
	require.Equal(t, exitOK, code, errOut)
	var rep keyIDReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, signing.KeyID(creds.Certificate), rep.KeyID, "the exact keyId in --json")
}
