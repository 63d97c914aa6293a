package client

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A 429 ACCESS_EXCEEDED without a Retry-After is a spent daily budget,
// however the bank writes it: the retry loop reads the answer as the
// call's error reads it (its Content-Encoding undone, as decodeContent
// does for a bank that gzips although the client asked for none; its
// tppMessages as decodeMessages reads them, a lone object or a member of
// another type included), and does not retry it, each retry another
// request the bank may count. On the code before, the error said
// ACCESS_EXCEEDED and the call had been sent 4 times.
func TestAccessExceededInAnyFormNotRetried(t *testing.T) {
	t.Parallel()
	plain := `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`
	for _, tt := range []struct {
		name, encoding string
		body           []byte
	}{
		{"gzip", "gzip", gzipped(t, []byte(plain))},
		{"tppMessages an object", "", []byte(`{"tppMessages":{"category":"ERROR","code":"ACCESS_EXCEEDED"}}`)},
		{"text a number", "", []byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED","text":5}]}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				if tt.encoding != "" {
					w.Header().Set("Content-Encoding", tt.encoding)
				}
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write(tt.body)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts/x/transactions"}, nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.True(t, e.HasCode(CodeAccessExceeded), "the error reads ACCESS_EXCEEDED: %v", err)
			assert.EqualValues(t, 1, b.count.Load(), "a spent budget is not retried")
		})
	}
}
