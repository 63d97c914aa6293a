package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// fillDowntimes stores n ended records of scope's bank, a minute apart
// from first, each 30 s long, as the breaker writes them.
func fillDowntimes(t *testing.T, st store.Store, scope, bank string, first time.Time, n int) {
	t.Helper()
	for i := range n {
		d := Downtime{Bank: bank, Start: first.Add(time.Duration(i) * time.Minute), Failures: 5,
			Evidence: []Evidence{{RequestID: "r", Status: 503, Result: "503 Service Unavailable", Operation: "accounts.Balances"}}}
		d.End = d.Start.Add(30 * time.Second)
		d.Evidence[0].At = d.Start
		raw, err := json.Marshal(d)
		require.NoError(t, err)
		require.NoError(t, st.Put(t.Context(), downtimePrefix(scope)+fmt.Sprintf("%020d", d.Start.UnixNano()), raw, DowntimeKept))
	}
}

// countKeys counts the keys under prefix.
func countKeys(t *testing.T, st store.Store, prefix string) int {
	t.Helper()
	n := 0
	for _, err := range st.Keys(t.Context(), prefix) {
		require.NoError(t, err)
		n++
	}
	return n
}

// A bank that flaps, down and up again and again, writes a downtime
// record per outage: the store keeps at most MaxDowntimes of them per
// bank, the oldest going first, and a period that begins before the
// records that went is refused (ErrDowntimesDropped), never reported
// with its outages left out, while a later period reads whole.
func TestFlappingBankKeepsDowntimesBounded(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	mem := store.NewMemoryStore()
	c := newTestClient(t, b.URL, clk.opt(), WithStore(mem), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	first := clk.now().Add(-300 * 24 * time.Hour)
	fillDowntimes(t, mem, c.Scope(), c.Bank(), first, MaxDowntimes)

	const flaps = 3
	began := clk.now()
	for range flaps {
		up.Store(false)
		for range DefaultBreakerPolicy().Consecutive {
			_, _ = c.Do(t.Context(), get, nil)
		}
		require.Equal(t, BreakerOpen, c.BankHealth().State)
		up.Store(true)
		clk.add(DefaultBreakerPolicy().ProbeMax)
		_, err := c.Do(t.Context(), get, nil)
		require.NoError(t, err)
		require.Equal(t, BreakerClosed, c.BankHealth().State)
		clk.add(time.Minute)
	}

	assert.LessOrEqual(t, countKeys(t, mem, downtimePrefix(c.Scope())), MaxDowntimes, "the records of a flapping bank stay bounded")

	downs, err := c.Downtimes(t.Context(), began.Add(-time.Second), clk.now())
	require.NoError(t, err)
	assert.Len(t, downs, flaps, "the new outages are all kept")

	_, err = c.Downtimes(t.Context(), first.Add(-time.Hour), clk.now())
	require.ErrorIs(t, err, ErrDowntimesDropped, "a period whose records went is no period without outages")

	// The flaps dropped the oldest records, the first flaps minutes':
	// a period after them reads whole.
	downs, err = c.Downtimes(t.Context(), first.Add(flaps*time.Minute), first.Add(flaps*time.Minute+time.Hour))
	require.NoError(t, err)
	assert.Len(t, downs, 60)
}

// countingGets counts the Gets of keys under prefix.
type countingGets struct {
	store.Store
	prefix string
	n      *atomic.Int64
}

func (s countingGets) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, s.prefix) {
		s.n.Add(1)
	}
	return s.Store.Get(ctx, key)
}

// Downtimes keeps no more than the period needs: the records that start
// after it are read (one that ends before it starts may end within the
// period), never kept unless so, and never more than MaxDowntimes
// records of a period go into memory (a store
// written before the bound holds more): that is an error, not an
// answer of unbounded size, nor one with records left out.
func TestDowntimesReadsWithinBounds(t *testing.T) {
	t.Parallel()
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	first := time.Now().Add(-200 * 24 * time.Hour)
	fillDowntimes(t, mem, c.Scope(), c.Bank(), first, MaxDowntimes+1)

	var gets atomic.Int64
	counted := newTestClient(t, "https://bank.example", WithStore(countingGets{Store: mem, prefix: downtimePrefix(c.Scope()), n: &gets}))
	downs, err := counted.Downtimes(t.Context(), first, first.Add(10*time.Minute))
	require.NoError(t, err)
	assert.Len(t, downs, 10)
	assert.LessOrEqual(t, gets.Load(), int64(MaxDowntimes+1), "each record read once")

	_, err = c.Downtimes(t.Context(), first.Add(-time.Hour), first.Add(365*24*time.Hour))
	require.Error(t, err, "more records than MaxDowntimes in a period")
	assert.Contains(t, err.Error(), "more than")
}

// A long outage fails more probes than its record keeps evidence of (32):
// the record's Failures counts every one of them, as its doc says, and
// only the evidence stops at its bound.
func TestLongOutageCountsEveryFailedProbe(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	start := clk.now()
	opening := DefaultBreakerPolicy().Consecutive
	for range opening {
		_, _ = c.Do(t.Context(), get, nil)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	const probes = 2 * maxEvidence
	for range probes {
		clk.add(DefaultBreakerPolicy().ProbeMax)
		_, err := c.Do(t.Context(), get, nil)
		require.NotErrorIs(t, err, ErrBankUnavailable, "the probe is sent")
	}
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err := c.Do(t.Context(), get, nil)
	require.NoError(t, err)

	downs, err := c.Downtimes(t.Context(), start.Add(-time.Hour), clk.now())
	require.NoError(t, err)
	require.Len(t, downs, 1)
	assert.Equal(t, opening+probes, downs[0].Failures, "every failed request of the outage")
	assert.Len(t, downs[0].Evidence, maxEvidence)
	assert.EqualValues(t, opening+probes+1, b.count.Load())
}
