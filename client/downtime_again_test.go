package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// The bank comes back, a replica that adopted the open breaker sees it
// and ends the record; then the bank goes down again and the opener,
// whose breaker is still open, sees its probe fail before a later one
// finds the bank back. The opener's close merges its account into the
// record: the record holds the failure after the replica's end, so it
// ends at the opener's end, never at an end before a failure it holds.
// On the code before, the merge kept the first end (the replica's), the
// record ending before its last failure.
func TestOpenerDownAgainAfterAdopterEndMovesTheEnd(t *testing.T) {
	t.Parallel()
	b, up, clk, st, opener, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err, "the replica's probe finds the bank back")
	firstEnd := clk.now()

	up.Store(false)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	failedAgain := clk.now()
	_, err = opener.Do(t.Context(), get, nil)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the opener's probe is sent, and fails: the bank is down again")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = opener.Do(t.Context(), get, nil)
	require.NoError(t, err, "the opener's next probe finds the bank back")
	end := clk.now()
	require.Equal(t, BreakerClosed, opener.BankHealth().State)

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), clk.now().Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	t.Logf("record: start %s, end %s, last failure %s (first end %s)", d.Start, d.End, d.LastFailure, firstEnd)
	assert.True(t, d.LastFailure.Equal(failedAgain), "last seen down at the opener's failed probe: %s, want %s", d.LastFailure, failedAgain)
	assert.False(t, d.End.Before(d.SeenUntil()), "the record ends at %s, before a failure it holds (%s)", d.End, d.SeenUntil())
	assert.True(t, d.End.Equal(end), "the opener's end, after the bank was down again: %s, want %s", d.End, end)
	assert.Equal(t, 6, d.Failures, "the opener's five and its failed probe")
}

// A replica that adopted the open breaker saw the bank fail after the
// record was ended (the bank up, then down again) and ends it later: the
// record ends at that later end, never before the failure it now holds.
// On the code before, endAdopted kept the first end.
func TestEndAdoptedDownAgainMovesTheEnd(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: start, End: start.Add(time.Hour), LastFailure: start, Failures: 5})

	_, ok := c.bankHealth().endAdopted(start.Add(2*time.Hour), Downtime{Failures: 2, LastFailure: start.Add(90 * time.Minute)})
	assert.False(t, ok, "ended already: the subscribers were told")
	downs, err := c.Downtimes(t.Context(), start, start.Add(3*time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.LastFailure.Equal(start.Add(90*time.Minute)))
	assert.True(t, d.End.Equal(start.Add(2*time.Hour)), "the later end: %s", d.End)
	assert.True(t, d.EndedElsewhere)
	assert.Equal(t, 7, d.Failures)
}

// mergeDowntime never gives an end before a failure the merged record
// holds: the earliest end after the last failure; with none, an
// account of an outage under way makes the record ongoing again, and
// ends before the last failure on every side (the replicas' clocks
// disagree) give the last failure as the end. An end that proves the
// bank back after every failure stays the first.
func TestMergeDowntimeNeverEndsBeforeAFailure(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	ev := func(id string, at time.Time) Evidence { return Evidence{RequestID: id, At: at, Result: "timeout"} }
	stored := Downtime{Start: t0, End: t0.Add(time.Hour), EndedElsewhere: true, LastFailure: t0.Add(50 * time.Minute), Failures: 7,
		Evidence: []Evidence{ev("a", t0)}}

	later := Downtime{Start: t0, End: t0.Add(2 * time.Hour), LastFailure: t0.Add(90 * time.Minute), Failures: 9,
		Evidence: []Evidence{ev("a", t0), ev("c", t0.Add(90*time.Minute))}}
	assert.True(t, mergeDowntime(stored, later, 5).End.Equal(later.End), "down again after the stored end: the later end")

	open := Downtime{Start: t0, LastFailure: t0.Add(70 * time.Minute), Failures: 3, Evidence: []Evidence{ev("d", t0.Add(70*time.Minute))}}
	assert.True(t, mergeDowntime(stored, open, 0).End.IsZero(), "down again, no end after it: ongoing again")
	assert.True(t, mergeDowntime(open, stored, 0).End.IsZero(), "either way round")

	skewed := Downtime{Start: t0, End: t0.Add(80 * time.Minute), LastFailure: t0.Add(90 * time.Minute), Failures: 2}
	m := mergeDowntime(stored, skewed, 0)
	assert.True(t, m.End.Equal(t0.Add(90*time.Minute)), "every end before the last failure: the last failure, %s", m.End)

	// The process's own clock stepped back between its last failure and
	// its answer: its end is before its last failure, and no account
	// under way saw the bank down after it. The record ends at the last
	// failure, not ongoing (it would read as an outage running on).
	opened := Downtime{Start: t0, LastFailure: t0.Add(time.Minute), Failures: 5}
	stepped := Downtime{Start: t0, End: t0.Add(10 * time.Minute), LastFailure: t0.Add(12 * time.Minute), Failures: 6}
	m = mergeDowntime(opened, stepped, 5)
	assert.True(t, m.End.Equal(t0.Add(12*time.Minute)), "its last failure: %s", m.End)

	within := Downtime{Start: t0, End: t0.Add(2 * time.Hour), LastFailure: t0.Add(40 * time.Minute), Failures: 2}
	assert.True(t, mergeDowntime(stored, within, 0).End.Equal(stored.End), "failures before the first end: the first end")
	for _, x := range []Downtime{mergeDowntime(stored, later, 5), mergeDowntime(stored, skewed, 0), mergeDowntime(stored, within, 0), mergeDowntime(opened, stepped, 5)} {
		assert.False(t, x.End.Before(x.SeenUntil()))
	}
}
