package client

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A subscriber that panics, on the goroutine the client starts for the
// store's writes and the notices (a client with a store), neither ends
// the process nor keeps the change from the other subscribers: the panic
// is recovered and logged at Error, and the breaker goes on. Before, the
// panic ended the TPP's whole process.
func TestOnChangePanicIsRecovered(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusBadGateway) })
	var logs logBuffer
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithStore(store.NewMemoryStore()), WithRetryPolicy(RetryPolicy{}),
		WithLogger(debugLogger(&logs)))
	var mu sync.Mutex
	var changes []BreakerChange
	c.Health().OnChange(func(BreakerChange) { panic("subscriber bug") })
	c.Health().OnChange(func(ch BreakerChange) { mu.Lock(); changes = append(changes, ch); mu.Unlock() })
	get := Operation{Name: "accounts.Transactions", Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, err := c.Do(t.Context(), get, nil)
		require.Error(t, err)
		clk.add(time.Second)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(changes) == 1
	}, 5*time.Second, 10*time.Millisecond, "the next subscriber is told")
	require.Eventually(t, func() bool { return logs.count("subscriber panicked") == 1 }, 5*time.Second, 10*time.Millisecond)
	assert.Contains(t, logs.String(), `"level":"ERROR"`)
	assert.Contains(t, logs.String(), "panic value of type string")
	assert.NotContains(t, logs.String(), "subscriber bug", "the value is the TPP's code's: not logged")
}
