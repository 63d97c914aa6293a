package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestKeyIDExitsFailedForACertificateNotValidNow: keyid prints the keyId
// of an expired or not yet valid certificate, and exits 1 saying so. It
// exited 0, with "NOT valid now" in the text only: a script checking
// the certificate before a deployment read an all-clear.
func TestKeyIDExitsFailedForACertificateNotValidNow(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for name, tc := range map[string]struct {
		notBefore, notAfter time.Time
		code                int
		says                string
	}{
		"expired":   {now.Add(-48 * time.Hour), now.Add(-24 * time.Hour), exitFailed, "expired"},
		"not yet":   {now.Add(24 * time.Hour), now.Add(48 * time.Hour), exitFailed, "not valid yet"},
		"valid now": {now.Add(-time.Hour), now.Add(24 * time.Hour), exitOK, ""},
	} {
		creds := testtpp.SelfSigned(t, &x509.Certificate{SerialNumber: big.NewInt(9), Subject: pkix.Name{CommonName: "Some TPP"},
			NotBefore: tc.notBefore, NotAfter: tc.notAfter, KeyUsage: x509.KeyUsageDigitalSignature})
		certFile := filepath.Join(t.TempDir(), "cert.pem")
		require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
		out, errOut, code := psd2(t, "keyid", "-cert", certFile)
		assert.Equal(t, tc.code, code, name)
		assert.Contains(t, out, "keyId:", "%s: the keyId is printed all the same", name)
		assert.Contains(t, errOut, tc.says, name)
	}
}
