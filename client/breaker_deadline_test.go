package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/hungstore"
)

// The breaker's store writes after an answer (the shared breaker's
// close, the downtime record's end) never hold the call past the
// caller's deadline: the answer comes back by then, the breaker is
// closed in the process at once, and the writes go on within their own
// bound. On the code before, the answer that closed the breaker waited
// for them on the caller's goroutine, up to breakerStoreWait for each,
// whatever the caller's deadline.
func TestBreakerStoreWritesHoldNoCallPastItsDeadline(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	hung := hungstore.New(t, []string{"Delete", "Keys"}, "client/breaker/", "client/downtime/")
	c := newTestClient(t, b.URL, clk.opt(), WithStore(hung), WithRetryPolicy(RetryPolicy{}))
	c.bankHealth().storeWait = 2 * time.Second // breakerStoreWait
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, _ = c.Do(t.Context(), get, nil) // the fifth opens the breaker
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeAfter)

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Do(ctx, get, nil) // the probe: its answer closes the breaker
	took := time.Since(start)
	require.NoError(t, err)
	assert.Less(t, took, 1500*time.Millisecond, "the caller's deadline (500 ms) bounds the call")
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}
