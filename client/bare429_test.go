package client

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBare429WithoutRetryAfterNotRetried: a 429 without tppMessages and
// without a readable Retry-After (a gateway's empty or HTML page) is what
// the call's error calls the spent daily budget (ErrAccessExceeded
// matches it), and no answer the caller gets as ACCESS_EXCEEDED is
// retried: each retry is another request the bank may count against the
// budget. On the code before, the retry loop looked for the code only:
// the call was sent 4 times, then ended with ErrAccessExceeded.
func TestBare429WithoutRetryAfterNotRetried(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"empty":             "",
		"HTML":              "<html><body>Too Many Requests</body></html>",
		"JSON, no messages": `{"error":"rate limited"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, body)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts/x/transactions"}, nil)
			require.ErrorIs(t, err, ErrAccessExceeded)
			assert.EqualValues(t, 1, b.count.Load(), "an answer the caller gets as ACCESS_EXCEEDED was retried")
		})
	}
}
