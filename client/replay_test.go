package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// TestVerifyRequiredRefusesReplays: under VerifyRequired a signed answer
// must cover x-request-id (the request's) and a fresh date, so a signed
// answer to another request, or an old one, is refused; VerifyIfPresent
// keeps accepting what it accepted.
func TestVerifyRequiredRefusesReplays(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	body := []byte(`{"transactionStatus":"ACSC"}`)
	const otherID = "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		name    string
		date    time.Time // zero: no Date header
		reqID   string    // "" = the request's; "-" = none; "+" and an id: the request's, then that id
		headers []string
		strict  error // VerifyRequired's cause; nil: accepted
		lenient error // VerifyIfPresent's cause; nil: accepted
	}{
		{name: "fresh, all signed", date: now, headers: []string{"date", "digest", "x-request-id"}},
		{name: "bank 14 min ahead", date: now.Add(14 * time.Minute), headers: []string{"date", "digest", "x-request-id"}},
		{name: "x-request-id not signed", date: now, headers: []string{"date", "digest"}, strict: errRequestIDNotSigned},
		{name: "no X-Request-ID", date: now, reqID: "-", headers: []string{"date", "digest"}, strict: errRequestIDNotSigned},
		{name: "date not signed", date: now, headers: []string{"digest", "x-request-id"}, strict: errDateNotSigned},
		{name: "dated 2006, no x-request-id", date: time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC), headers: []string{"date", "digest"}, strict: errRequestIDNotSigned},
		{name: "dated 2006", date: time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC), headers: []string{"date", "digest", "x-request-id"}, strict: errStaleDate},
		{name: "dated year 1", date: time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), headers: []string{"date", "digest", "x-request-id"}, strict: errStaleDate},
		{name: "16 min old", date: now.Add(-16 * time.Minute), headers: []string{"date", "digest", "x-request-id"}, strict: errStaleDate},
		{name: "16 min ahead", date: now.Add(16 * time.Minute), headers: []string{"date", "digest", "x-request-id"}, strict: errStaleDate},
		{name: "another request's answer", date: now, reqID: otherID, headers: []string{"date", "digest", "x-request-id"}, strict: errRequestIDChanged, lenient: errRequestIDChanged},
		// Two X-Request-ID lines, the request's first: the signed value
		// is both joined, not the request's. On the code before, the
		// first line alone was compared and the answer accepted.
		{name: "the request's id, then another", date: now, reqID: "+" + otherID, headers: []string{"date", "digest", "x-request-id"}, strict: errRequestIDChanged, lenient: errRequestIDChanged},
	}
	for _, tt := range tests {
		for _, mode := range []VerifyMode{VerifyRequired, VerifyIfPresent} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				t.Parallel()
				b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
					h := w.Header()
					h.Set("Content-Type", "application/json")
					if !tt.date.IsZero() {
						h.Set("Date", tt.date.UTC().Format(http.TimeFormat))
					}
					switch tt.reqID {
					case "":
						h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
					case "-":
					case "+" + otherID:
						h["X-Request-Id"] = []string{r.Header.Get("X-Request-ID"), otherID}
					default:
						h.Set("X-Request-ID", tt.reqID)
					}
					h.Set("Digest", signing.Digest(body))
					signAs(t, h, 2, bankCert, tt.headers...)
					w.Write(body)
				})
				c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBankCertificates(bankCert), WithResponseVerification(mode))
				var out struct{ TransactionStatus string }
				_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/payments/sepa-credit-transfers/OTHER/status"}, &out)
				cause := tt.lenient
				if mode == VerifyRequired {
					cause = tt.strict
				}
				if cause == nil {
					require.NoError(t, err)
					assert.Equal(t, "ACSC", out.TransactionStatus)
					return
				}
				require.ErrorIs(t, err, ErrResponseSignature)
				require.ErrorIs(t, err, cause)
				assert.Empty(t, out.TransactionStatus, "the body is not decoded")
			})
		}
	}
}
