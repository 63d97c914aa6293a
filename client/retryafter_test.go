package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRetryAfterOverflow: a Retry-After in seconds too large for int64 is
// the 24-hour cap, not an absent header: the call is not retried.
func TestRetryAfterOverflow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"99999999999999999999", 24 * time.Hour, true},
		{"9223372036854775807", 24 * time.Hour, true},
		{"+99999999999999999999", 24 * time.Hour, true},
		{"-99999999999999999999", 0, false},
		{"86400", 24 * time.Hour, true},
		{"86399", 86399 * time.Second, true},
	} {
		h := http.Header{"Retry-After": {tt.value}}
		d, ok := retryAfter(h, time.Time{}, time.Now())
		assert.Equal(t, tt.want, d, tt.value)
		assert.Equal(t, tt.ok, ok, tt.value)
	}

	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "99999999999999999999")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.EqualValues(t, 1, b.count.Load(), "a wait beyond MaxRetryAfter is not retried")
}
