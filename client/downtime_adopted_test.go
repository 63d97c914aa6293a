package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A replica that adopted another's open breaker and whose probes failed
// saw the bank down after the other last did: when it ends the other's
// record, the record says so (its last failure, its failures), rather
// than that the bank was last seen down when the other replica last saw
// it. On the code before, the record kept the opener's last failure, and
// the report's time seen failing left the replica's failed probes out.
func TestAdoptedBreakerRecordsItsFailedProbes(t *testing.T) {
	t.Parallel()
	b, up, clk, st, _, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}

	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")

	clk.add(DefaultBreakerPolicy().ProbeMax)
	failed := clk.now()
	_, err = replica.Do(t.Context(), get, nil)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the replica's probe is sent, and fails")

	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err, "the replica's next probe finds the bank back")
	end := clk.now()

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), end.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.End.Equal(end))
	assert.True(t, d.LastFailure.Equal(failed), "last seen down at the replica's failed probe: %s, want %s", d.LastFailure, failed)
	assert.Equal(t, 6, d.Failures, "the opener's five and the replica's probe")
	a := Report(replica.Bank(), downs, start, end, end)
	assert.Equal(t, failed.Sub(start), a.Seen)
}

// The opener's failures after it wrote the record are not in a record
// another process ended: its time seen failing is a lower bound, and the
// report says so. On the code before, it was given as the figure.
func TestRecordEndedElsewhereSeenIsALowerBound(t *testing.T) {
	t.Parallel()
	b, up, clk, st, _, start := outageOfAReplica(t)
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	replica := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	_, err := replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the replica adopts the open breaker")
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeMax)
	_, err = replica.Do(t.Context(), get, nil)
	require.NoError(t, err)
	end := clk.now()

	downs, err := replica.Downtimes(t.Context(), start.Add(-time.Hour), end.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	assert.True(t, downs[0].EndedElsewhere)
	assert.True(t, downs[0].SeenAtLeast())
	a := Report(replica.Bank(), downs, start, end, end)
	assert.True(t, a.SeenAtLeast)
	assert.Contains(t, a.String(), "at least")
	assert.Contains(t, a.String(), "ended by another process")
}
