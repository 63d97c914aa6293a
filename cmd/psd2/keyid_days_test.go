package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
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

// TestKeyIDDaysLeftOfAFarValidity: a certificate valid until
// 9999-12-31 (RFC 5280's "no well-defined expiration date") or since
// long ago has its days left counted in full. keyid said 106751 days
// left (a time.Duration's most, 292 years) for any end past 2318, and
// as many days in the negative for a certificate expired before 1734.
func TestKeyIDDaysLeftOfAFarValidity(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		notBefore, notAfter time.Time
	}{
		{now.Add(-time.Hour), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1701, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		creds := testtpp.SelfSigned(t, &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Far TPP"},
			NotBefore: tc.notBefore, NotAfter: tc.notAfter, KeyUsage: x509.KeyUsageDigitalSignature})
		certFile := filepath.Join(t.TempDir(), "cert.pem")
		require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
		out, errOut, code := psd2(t, "keyid", "--json", "-cert", certFile)
		wantCode := exitOK
		if tc.notAfter.Before(now) {
			wantCode = exitFailed // printed, and said not valid
		}
		require.Equal(t, wantCode, code, errOut)
		var rep keyIDReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		want := int((tc.notAfter.Unix() - now.Unix()) / 86400)
		assert.InDelta(t, want, rep.DaysLeft, 1, "until %s", tc.notAfter)
	}
}
