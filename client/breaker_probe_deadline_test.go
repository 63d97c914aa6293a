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

// The claim of the bank's probe turn (claimProbe) never holds a call
// past the caller's deadline: a hung store is given up on by then, and
// the process probes on its own as when the store cannot be reached. On
// the code before, the claim ran on the store's own bound without the
// caller's deadline: a caller with 200 ms left waited the whole bound
// (breakerStoreWait; a long one here, to stand out).
func TestProbeClaimHoldsNoCallPastItsDeadline(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	hung := hungstore.New(t, []string{"Update"}, "client/breaker-probe/")
	c := newTestClient(t, b.URL, clk.opt(), WithStore(hung), WithRetryPolicy(RetryPolicy{}))
	c.bankHealth().storeWait = time.Minute
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, _ = c.Do(t.Context(), get, nil) // the fifth opens the breaker
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeAfter)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, get, nil) // the probe's turn is claimed on the hung store
		ended <- err
	}()
	select {
	case err := <-ended:
		require.Error(t, err, "the caller's deadline ended the call")
	case <-time.After(2200 * time.Millisecond):
		t.Fatal("the probe's claim holds the call 2 s past its 200 ms deadline")
	}

	// The store answers again: the next call claims the turn and probes.
	hung.Hung.Store(false)
	_, err := c.Do(t.Context(), get, nil)
	require.NoError(t, err)
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}
