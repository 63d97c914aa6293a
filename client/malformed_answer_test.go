package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMalformedAnswerQuotesNothing: an answer that is not valid HTTP (a
// server echoing the request back, a header line without a colon, a
// broken trailer) fails the call as a transport error, and net/http
// quotes the offending bytes of the answer in it: a PSU-ID or an account
// path. The call's error and the client's log say what was malformed
// and quote none of it, as the call's *Error quotes none of a bank's
// text; a payment's outcome is unknown and it is not sent again. On the
// code before, the error and the Warn log line carried the bytes.
func TestMalformedAnswerQuotesNothing(t *testing.T) {
	t.Parallel()
	const psu, account = "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "NO9386011117947"
	body := `{"paymentId":"p1"}`
	for name, raw := range map[string]string{
		"request echoed":        "GET /v1/accounts/" + account + "/balances HTTP/1.1\r\nPSU-ID: " + psu + "\r\n\r\n",
		"header without colon":  "HTTP/1.1 201 Created\r\nPSU-ID " + psu + "\r\n\r\n",
		"trailer without colon": fmt.Sprintf("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\nPSU-ID %s\r\n\r\n", len(body), body, psu),
		"bad Content-Length":    "HTTP/1.1 201 Created\r\nContent-Length: " + account + "\r\n\r\n",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(name+"/"+method, func(t *testing.T) {
				t.Parallel()
				b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
					conn, buf, err := w.(http.Hijacker).Hijack()
					if err != nil {
						return
					}
					defer conn.Close()
					_, _ = buf.WriteString(raw)
					_ = buf.Flush()
				})
				var logs logBuffer
				c := newTestClient(t, b.URL, WithLogger(debugLogger(&logs)))
				op := Operation{Method: method, Path: "/v1/accounts/x/balances"}
				if method == http.MethodPost {
					op = Operation{Method: method, Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}
				}
				_, err := c.Do(t.Context(), op, nil)
				require.Error(t, err)
				for _, secret := range []string{psu, account} {
					assert.NotContains(t, err.Error(), secret)
					assert.NotContains(t, fmt.Sprintf("%+v", err), secret)
					assert.Zero(t, logs.count(secret), "the log quotes the answer")
					var ue *url.Error
					if errors.As(err, &ue) {
						assert.NotContains(t, ue.Error(), secret, "the *url.Error errors.As finds")
					}
				}
				assert.Contains(t, err.Error(), "[redacted]", "the error says what was malformed: %v", err)
				if method == http.MethodPost {
					assert.ErrorIs(t, err, ErrOutcomeUnknown)
					assert.EqualValues(t, 1, b.count.Load(), "the payment was sent again")
				}
			})
		}
	}
}
