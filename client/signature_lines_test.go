package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// TestSignatureOverSeveralLines: Signature is one value that cannot be
// split over field lines (its parts are joined by commas), so an answer
// carrying it on several lines is malformed, whatever the first says: a
// *ResponseSignatureError matching signing.ErrMalformed (inside an
// outcome unknown for a create, sent once). On the code before, the first
// line alone was read: a valid signature with another line after it
// passed, and an empty line before a signature made the answer read as
// unsigned (accepted under VerifyIfPresent).
func TestSignatureOverSeveralLines(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	body := []byte(`{"paymentId":"p1","transactionStatus":"RCVD"}`)
	for _, tt := range []struct {
		name  string
		lines func(sig string) []string
	}{
		{"another line after", func(sig string) []string {
			return []string{sig, `keyId="x",algorithm="rsa-sha256",headers="date",signature="AAAA"`}
		}},
		{"the same twice", func(sig string) []string { return []string{sig, sig} }},
		{"an empty line before", func(sig string) []string { return []string{"", sig} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				h := w.Header()
				h.Set("Content-Type", "application/json")
				h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
				h.Set("Digest", signing.Digest(body))
				h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
				signAs(t, h, 2, bankCert, "date", "digest", "x-request-id")
				h["Signature"] = tt.lines(h.Get("Signature"))
				w.WriteHeader(http.StatusCreated)
				w.Write(body)
			})
			c := newTestClient(t, b.URL, WithBankCertificates(bankCert))
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.ErrorIs(t, err, ErrResponseSignature)
			require.ErrorIs(t, err, signing.ErrMalformed)
			assert.EqualValues(t, 1, b.count.Load())
		})
	}
}
