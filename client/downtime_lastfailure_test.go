package client

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// On low traffic the probe that ends a downtime goes with the next call,
// hours after the bank came back: the record says when the bank was last
// seen down, and the report tells the time failed requests prove from
// the time no request looked at, rather than file hours of outage that
// nothing saw.
func TestDowntimeRecordsItsLastFailure(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithStore(store.NewMemoryStore()), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/x"}
	start := clk.now()
	for range 5 {
		_, err := c.Do(t.Context(), get, nil)
		require.NotErrorIs(t, err, ErrBankUnavailable)
		clk.add(time.Second)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	clk.add(DefaultBreakerPolicy().ProbeAfter)
	lastFailure := clk.now()
	_, err := c.Do(t.Context(), get, nil)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the probe is sent, and fails")
	require.EqualValues(t, 6, b.count.Load())

	// The bank comes back; nobody calls for three hours.
	down.Store(false)
	clk.add(3 * time.Hour)
	end := clk.now()
	_, err = c.Do(t.Context(), get, nil)
	require.NoError(t, err, "the next call probes the bank, which answers")
	require.Equal(t, BreakerClosed, c.BankHealth().State)

	downs, err := c.Downtimes(t.Context(), start.Add(-time.Hour), end.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.End.Equal(end), "ends when the bank was first seen up")
	assert.True(t, d.LastFailure.Equal(lastFailure), "last seen down at the failed probe: %s, want %s", d.LastFailure, lastFailure)
	assert.True(t, d.SeenUntil().Equal(lastFailure))
	assert.Equal(t, 6, d.Failures)

	a := Report(c.Bank(), downs, start.Add(-time.Hour), end.Add(time.Hour), end.Add(time.Hour))
	assert.Equal(t, end.Sub(start), a.Unavailable, "the breaker's record, start to end")
	assert.Equal(t, lastFailure.Sub(start), a.Seen, "what failed requests prove")
	text := a.String()
	assert.Contains(t, text, "seen failing")
	assert.Contains(t, text, "the last at "+lastFailure.UTC().Format(time.RFC3339))
}

// A record of an earlier version has no LastFailure: its latest evidence
// stands in, and the report's Seen counts overlapping records once, cut
// to the period.
func TestReportSeenFromEvidence(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	start := from.Add(10 * time.Minute)
	downs := []Downtime{
		{Bank: "b", Start: start, End: start.Add(2 * time.Hour), Evidence: []Evidence{{At: start}, {At: start.Add(20 * time.Minute)}, {At: start.Add(5 * time.Minute)}}},
		{Bank: "b", Start: start.Add(time.Minute), End: start.Add(2 * time.Hour), LastFailure: start.Add(30 * time.Minute)},
		{Bank: "b", Start: start.Add(3 * time.Hour), LastFailure: start.Add(4 * time.Hour)}, // under way
	}
	to := start.Add(3*time.Hour + 30*time.Minute)
	a := Report("b", downs, from, to, to)
	assert.Equal(t, 2, a.Count)
	assert.Equal(t, 2*time.Hour+30*time.Minute, a.Unavailable)
	assert.Equal(t, 30*time.Minute+30*time.Minute, a.Seen, "30 minutes of the first two, 30 of the third within the period")
	assert.True(t, a.Seen <= a.Unavailable)
	assert.Equal(t, 1, strings.Count(a.String(), "seen failing"))
}
