package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// failingGets is a store whose Get of a key under prefix fails: a
// slow database past its deadline, a connection cut mid-read.
type failingGets struct {
	store.Store
	prefix string
}

var errStoreDown = errors.New("store: connection reset")

func (s failingGets) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, s.prefix) {
		return nil, errStoreDown
	}
	return s.Store.Get(ctx, key)
}

// putDowntime stores d as the breaker writes it.
func putDowntime(t *testing.T, st store.Store, scope string, d Downtime) {
	t.Helper()
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(t.Context(), downtimePrefix(scope)+fmt.Sprintf("%020d", d.Start.UnixNano()), raw, DowntimeKept))
}

// A downtime record the store holds but could not give, or gave
// unreadable, is an error of Downtimes, never a record left out: a
// report without it would show the bank available when it was not.
func TestDowntimesUnreadIsAnError(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: start, End: start.Add(time.Hour), Failures: 5})

	downs, err := c.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(2*time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)

	failing := newTestClient(t, "https://bank.example", WithStore(failingGets{Store: mem, prefix: downtimePrefix(c.Scope())}))
	_, err = failing.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(2*time.Hour))
	require.ErrorIs(t, err, errStoreDown, "a store that fails is no record")
	_, err = failing.DowntimeRecords(t.Context())
	require.ErrorIs(t, err, errStoreDown, "a listing the store failed is no empty listing")
	require.NoError(t, mem.Put(t.Context(), forgottenPrefix(c.Scope())+"x", []byte(`{}`), time.Hour))
	_, err = newTestClient(t, "https://bank.example", WithStore(failingGets{Store: mem, prefix: forgottenPrefix(c.Scope())})).ForgottenDowntimes(t.Context())
	require.ErrorIs(t, err, errStoreDown)
	require.NoError(t, mem.Delete(t.Context(), forgottenPrefix(c.Scope())+"x"))

	require.NoError(t, mem.Put(t.Context(), downtimePrefix(c.Scope())+fmt.Sprintf("%020d", start.Add(3*time.Hour).UnixNano()), []byte("{garbled"), time.Hour))
	_, err = c.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(5*time.Hour))
	require.Error(t, err, "an unreadable record is no record")
}

// Replicas on one store each open their own breaker in an outage they
// all meet, and each writes its record: the report counts the time the
// bank was unavailable once, not once per replica (an hour's outage
// seen by three replicas is an hour, and the uptime never goes below 0).
func TestReportOverlappingRecords(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(2 * time.Hour)
	start := from.Add(30 * time.Minute)
	downs := []Downtime{
		{Bank: "b", Start: start, End: start.Add(time.Hour)},
		{Bank: "b", Start: start.Add(time.Second), End: start.Add(time.Hour + time.Second)},
		{Bank: "b", Start: start.Add(2 * time.Second), End: start.Add(time.Hour - time.Minute)},
		{Bank: "b", Start: start.Add(80 * time.Minute), End: start.Add(85 * time.Minute)},
	}
	a := Report("b", downs, from, to, to)
	assert.Equal(t, 2, a.Count, "two unavailabilities")
	assert.Equal(t, time.Hour+time.Second+5*time.Minute, a.Unavailable)
	assert.Equal(t, time.Hour+time.Second, a.Longest)
	assert.InDelta(t, 100*(1-(3901.0/7200)), a.Uptime, 1e-9)
	assert.Len(t, a.Downtimes, 4, "every replica's record and its evidence")
}

// A replica that adopted another's open breaker from the store and then
// found the bank back ends the downtime record the other wrote, and
// tells its subscribers (bank.available): the replica that opened it may
// have crashed, and a record never ended would read as an outage running
// on to this day.
func TestAdoptedBreakerEndsTheRecord(t *testing.T) {
	t.Parallel()
	b, up, clk, st, _, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}

	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	var changes []BreakerChange
	var mu sync.Mutex
	replica.Health().OnChange(func(ch BreakerChange) { mu.Lock(); changes = append(changes, ch); mu.Unlock() })
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err, "the replica's probe finds the bank back")
	end := clk.now()

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), end.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	assert.True(t, downs[0].Start.Equal(start))
	assert.True(t, downs[0].End.Equal(end), "the record ends when the bank answered again")
	a := Report(replica.Bank(), downs, start, end.Add(24*time.Hour), end.Add(24*time.Hour))
	assert.Equal(t, end.Sub(start), a.Unavailable, "not an outage running on")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, changes, 1)
	assert.Equal(t, BreakerClosed, changes[0].To)
	assert.True(t, changes[0].Downtime.Start.Equal(start))
	assert.True(t, changes[0].Downtime.End.Equal(end))
}

// The only replica crashed during an outage and came back once its open
// breaker had left the store: its record was never ended. The first
// answer the bank gives the new process ends it (the bank answered again
// by then at the latest), rather than leaving an outage that runs on in
// every report.
func TestRecordOfACrashedReplicaEndsAtTheNextAnswer(t *testing.T) {
	t.Parallel()
	b, up, clk, st, crashed, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	// The open breaker leaves the store a minute after its probe time.
	require.NoError(t, st.Delete(t.Context(), breakerKey(crashed.Scope())))

	up.Store(true)
	clk.add(10 * time.Minute)
	restarted := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := restarted.Do(t.Context(), get, nil)
	require.NoError(t, err)
	back := clk.now()
	clk.add(time.Hour)
	_, err = restarted.Do(t.Context(), get, nil)
	require.NoError(t, err)

	downs, err := restarted.Downtimes(t.Context(), start.Add(-time.Hour), clk.now())
	require.NoError(t, err)
	require.Len(t, downs, 1)
	assert.True(t, downs[0].End.Equal(back), "ends at the first answer after the crash, not later: %v", downs[0].End)
	a := Report(restarted.Bank(), downs, start.Add(-time.Hour), clk.now(), clk.now())
	assert.Equal(t, back.Sub(start), a.Unavailable)
}

// outageOfAReplica is a bank down (up unset) and a replica (crashed) on
// store st and frozen clock clk whose calls from start opened its
// breaker, which the store holds with its downtime record.
func outageOfAReplica(t *testing.T) (b *bank, up *atomic.Bool, clk *frozenClock, st store.Store, crashed *Client, start time.Time) {
	t.Helper()
	b, up = downBank(t)
	clk = newFrozenClock()
	st = store.NewMemoryStore()
	crashed = newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	start = clk.now()
	for range 5 {
		_, _ = crashed.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	}
	require.Equal(t, BreakerOpen, crashed.BankHealth().State)
	return b, up, clk, st, crashed, start
}
