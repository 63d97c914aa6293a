package budget_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// A retry of a counted call that meets the bank's pause, which ends
// after the caller's deadline, ends the call at once with the bank's
// answer: on the code before, it waited for the pause until the
// deadline (the client's 30 s call timeout by default, holding a worker)
// only to end with the same answer.
func TestRetryDuringAPauseBeyondTheDeadlineEndsAtOnce(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "20") // pauses the bank for 20 s
		}
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second}))
	require.NoError(t, err)
	svc := newService(t, c)
	_, err = svc.Balances(t.Context(), acc2, psuPresent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	_, paused, _ := budgetOf(svc).PausedUntil(t.Context())
	require.True(t, paused)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	took := time.Since(start)
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusTooManyRequests, ce.StatusCode)
	assert.Less(t, took, 5*time.Second, "no wait for a pause that outlasts the call (the deadline: 10 s)")
	assert.EqualValues(t, 2, n.Load())
}
