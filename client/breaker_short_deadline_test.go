package client

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller's short deadline is not the bank's failure. A repeatable call
// with retries left gives an attempt half of the time before the
// caller's deadline (at least a second): a bank that answers in 1.3 s,
// well within the EBA's 30 s, does not answer such an attempt of a call
// with a 2 s deadline in time. The attempt's time limit was the
// caller's, not the client's response timeout: it is no request the
// bank left unanswered. On the code before, five such calls opened the
// breaker, refused every later call of every caller of the bank as
// "bank unavailable" and wrote a downtime record of an outage that
// never was.
func TestBreakerIgnoresAnAttemptCutByTheCallersDeadline(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-time.After(1300 * time.Millisecond):
			_, _ = w.Write([]byte(`{}`))
		case <-r.Context().Done():
		}
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			_, _ = c.Do(ctx, get, nil)
		})
	}
	wg.Wait()
	h := c.BankHealth()
	assert.Equal(t, BreakerClosed, h.State, "the callers' deadlines opened the breaker")
	assert.Nil(t, h.Down)

	// The bank answers a call with time for it.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.Do(ctx, get, nil)
	require.NoError(t, err)
}
