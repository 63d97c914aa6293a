package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A bank in a 5xx storm that answers Retry-After: 0, or a date already
// past (its clock behind), must not turn the policy's backoff off: on
// the code before, the client sent its MaxRetries retries back to back,
// four requests at once into the storm. Retry-After is the least wait,
// never less than the backoff.
func TestRetryAfterPastKeepsBackoff(t *testing.T) {
	t.Parallel()
	for _, ra := range []string{"0", time.Now().UTC().Add(-time.Hour).Format(http.TimeFormat)} {
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Retry-After", ra)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		pol := RetryPolicy{MaxRetries: 3, MinBackoff: 40 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, MaxRetryAfter: time.Minute}
		c := newTestClient(t, b.URL+"/api", WithRetryPolicy(pol), WithBreaker(BreakerPolicy{Off: true}))
		start := time.Now()
		_, _ = c.Do(t.Context(), Operation{Name: "test", Method: http.MethodGet, Path: "/v1/x"}, nil)
		took := time.Since(start)
		assert.EqualValues(t, 4, b.count.Load(), "Retry-After %q", ra)
		// Jitter keeps each wait in the backoff's upper half: 20 ms or more.
		assert.GreaterOrEqual(t, took, 60*time.Millisecond, "Retry-After %q: the retries waited no backoff", ra)
	}
}
