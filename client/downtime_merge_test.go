package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// The replica that opened the breaker, still running, closes its own
// breaker after another replica, which adopted it, ended the record: the
// record keeps the other's end (the first answer that proved the bank
// back) and the failures of both, the opener's own added without counting
// twice those it wrote at the start. On the code before, the opener wrote
// its record over the stored one: the other's end and failed probe went.
func TestOpenerCloseKeepsAdopterEndAndFailures(t *testing.T) {
	t.Parallel()
	b, up, clk, st, opener, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")

	clk.add(DefaultBreakerPolicy().ProbeMax)
	replicaFailed := clk.now()
	_, err = replica.Do(t.Context(), get, nil)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the replica's probe is sent, and fails")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err, "the replica's next probe finds the bank back")
	end := clk.now()

	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = opener.Do(t.Context(), get, nil)
	require.NoError(t, err)
	require.Equal(t, BreakerClosed, opener.BankHealth().State)
	require.Len(t, opener.BankHealth().Recent, 1, "the opener closed its own breaker")

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), clk.now().Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.Start.Equal(start))
	assert.True(t, d.End.Equal(end), "the replica's end, the first answer: %s, want %s", d.End, end)
	assert.True(t, d.LastFailure.Equal(replicaFailed), "last seen down at the replica's failed probe: %s, want %s", d.LastFailure, replicaFailed)
	assert.Equal(t, 6, d.Failures, "the opener's five and the replica's probe, none twice")
	assert.True(t, d.EndedElsewhere)
	assert.Len(t, d.Evidence, 5)
}

// Merging keeps the failures of both accounts, counting those this
// process wrote before once, and the first end that proves the bank
// back after the last failure: mine saw the bank fail at 90 minutes,
// after the stored end (the bank came back, then went down again), so
// the record ends at my end (it kept the stored end, before a failure it
// holds, before TestMergeDowntimeNeverEndsBeforeAFailure).
func TestMergeDowntime(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	ev := func(id string, at time.Time) Evidence { return Evidence{RequestID: id, At: at, Result: "timeout"} }
	stored := Downtime{Start: t0, End: t0.Add(time.Hour), EndedElsewhere: true, LastFailure: t0.Add(50 * time.Minute), Failures: 7,
		Evidence: []Evidence{ev("a", t0), ev("b", t0.Add(time.Second))}}
	mine := Downtime{Start: t0, End: t0.Add(2 * time.Hour), LastFailure: t0.Add(90 * time.Minute), Failures: 9,
		Evidence: []Evidence{ev("a", t0), ev("b", t0.Add(time.Second)), ev("c", t0.Add(90*time.Minute))}}
	m := mergeDowntime(stored, mine, 5)
	assert.True(t, m.End.Equal(t0.Add(2*time.Hour)), "the end after the last failure: %s", m.End)
	assert.True(t, m.LastFailure.Equal(t0.Add(90*time.Minute)))
	assert.Equal(t, 11, m.Failures, "mine 9, and the other's 2 beyond the 5 I wrote")
	assert.True(t, m.EndedElsewhere)
	assert.Len(t, m.Evidence, 3)

	back := stored
	back.End = t0.Add(-time.Minute)
	assert.True(t, mergeDowntime(back, mine, 5).End.Equal(mine.End), "an end before the start proves nothing")
	assert.True(t, mergeDowntime(stored, Downtime{Start: t0, Failures: 2}, 0).End.Equal(stored.End), "an open record keeps the stored end")
}

// A replica that adopted the open breaker and failed a probe, closing
// after the opener closed and ended the record, adds its failures to the
// record, whose end stays the opener's. On the code before, the replica
// found the record ended and its failed probe was left out.
func TestAdopterCloseAfterOpenerKeepsItsFailures(t *testing.T) {
	t.Parallel()
	b, up, clk, st, opener, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")

	clk.add(DefaultBreakerPolicy().ProbeMax)
	replicaFailed := clk.now()
	_, err = replica.Do(t.Context(), get, nil)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the replica's probe is sent, and fails")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = opener.Do(t.Context(), get, nil)
	require.NoError(t, err, "the opener's probe finds the bank back")
	end := clk.now()

	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err)
	require.Equal(t, BreakerClosed, replica.BankHealth().State)

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), clk.now().Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.End.Equal(end), "the opener's end: %s, want %s", d.End, end)
	assert.True(t, d.LastFailure.Equal(replicaFailed), "last seen down at the replica's failed probe: %s, want %s", d.LastFailure, replicaFailed)
	assert.Equal(t, 6, d.Failures, "the opener's five and the replica's probe")
}

// A replica that closes the breaker it adopted after the record was
// ended, its clock saying it saw the bank back first, leaves the first
// end that proves the bank back in the record (its own, said to be
// ended elsewhere) and adds its failures; it tells no subscriber, the
// record being ended already.
func TestEndAdoptedAfterEndKeepsTheFirstEnd(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: start, End: start.Add(time.Hour), LastFailure: start, Failures: 5})

	_, ok := c.bankHealth().endAdopted(start.Add(30*time.Minute), Downtime{Failures: 2, LastFailure: start.Add(20 * time.Minute)})
	assert.False(t, ok, "ended already: no change to tell")
	downs, err := c.Downtimes(t.Context(), start, start.Add(2*time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.End.Equal(start.Add(30*time.Minute)), "the first end: %s", d.End)
	assert.True(t, d.EndedElsewhere)
	assert.Equal(t, 7, d.Failures)
	assert.True(t, d.LastFailure.Equal(start.Add(20*time.Minute)))
}
