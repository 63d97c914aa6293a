package client

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// TestCutErrorBodyDigest: a 400 to a payment POST whose body is longer
// than maxErrorBody, with a correct Digest, is a definite refusal (*Error)
// under VerifyIfPresent: the Digest mismatch the client caused by cutting
// is not a verification failure. Under VerifyRequired the cut body cannot
// be checked, and the answer is refused as unverifiable (outcome unknown).
// A body within the limit whose Digest is wrong still fails.
func TestCutErrorBodyDigest(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	big := []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","text":"` + strings.Repeat("x", 70000) + `"}]}`)
	require.Greater(t, len(big), maxErrorBody)
	small := []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(big)
	require.NoError(t, zw.Close())
	require.Less(t, zipped.Len(), maxErrorBody)

	tests := []struct {
		name   string
		mode   VerifyMode
		certs  bool
		body   []byte // sent
		digest []byte // what Digest covers
		gzip   bool
		key    int   // signing key; 0: unsigned
		cause  error // nil: a *Error 400
	}{
		{name: "unsigned, no certs", body: big, digest: big},
		{name: "unsigned, certs", certs: true, body: big, digest: big},
		{name: "signed, certs", certs: true, body: big, digest: big, key: 2},
		{name: "signed by another key, certs", certs: true, body: big, digest: big, key: 1, cause: signing.ErrBadSignature},
		{name: "gzip, Digest of the decoded body", body: zipped.Bytes(), digest: big, gzip: true},
		{name: "required, signed", mode: VerifyRequired, certs: true, body: big, digest: big, key: 2, cause: errCutBody},
		{name: "required, unsigned", mode: VerifyRequired, certs: true, body: big, digest: big, cause: signing.ErrNoSignature},
		{name: "within the limit, wrong Digest", body: small, digest: []byte("{}"), cause: signing.ErrDigestMismatch},
		{name: "within the limit, signed, wrong Digest", certs: true, body: small, digest: []byte("{}"), key: 2, cause: signing.ErrDigestMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				h := w.Header()
				h.Set("Content-Type", "application/json")
				if tt.gzip {
					h.Set("Content-Encoding", "gzip")
				}
				h.Set("Digest", signing.Digest(tt.digest))
				if tt.key != 0 {
					h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
					h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
					signAs(t, h, tt.key, bankCert, "date", "digest", "x-request-id")
				}
				w.WriteHeader(http.StatusBadRequest)
				w.Write(tt.body)
			})
			opts := []Option{WithResponseVerification(tt.mode)}
			if tt.certs {
				opts = append(opts, WithBankCertificates(bankCert))
			}
			c := newTestClient(t, b.URL, opts...)
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			assert.EqualValues(t, 1, b.count.Load(), "sent once")
			var e *Error
			if tt.cause == nil {
				require.ErrorAs(t, err, &e)
				assert.Equal(t, http.StatusBadRequest, e.StatusCode)
				assert.False(t, errors.Is(err, ErrOutcomeUnknown), "a 4xx is a definite refusal: %v", err)
				assert.False(t, errors.Is(err, ErrResponseSignature))
				return
			}
			require.ErrorIs(t, err, ErrResponseSignature)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.ErrorIs(t, err, tt.cause)
			assert.False(t, errors.As(err, &e), "no *Error from an unverified answer")
		})
	}
}
