package riverrefresh_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// queuePaused reports whether River holds the bank's queue paused.
func queuePaused(t *testing.T, e *riverrefresh.Engine) bool {
	t.Helper()
	q, err := e.Client().QueueGet(t.Context(), "psd2_refresh_testbank")
	require.NoError(t, err)
	return q.PausedAt != nil
}

// A bank's queue an engine paused for a bank's pause, left paused in
// River's table (paused_at outlives every process) because every engine
// stopped before the pause ended, is resumed by the next engine that
// looks, although the budget no longer reports the pause (it forgets one
// an hour after its end; here no pause is stored at all). Before, no
// engine ever resumed it: each resumed only after a pause it could still
// read, and the bank's accounts were never refreshed again. A queue an
// operator paused by hand, with no pause of the engines behind it, stays
// paused.
func TestQueueLeftPausedIsResumed(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	first := w.engine(t, riverrefresh.Config{Work: true})
	require.NoError(t, first.Migrate(ctx))
	start(t, first)
	until := time.Now().Add(time.Second)
	first.SetPauseSource("testbank", func(context.Context) (time.Time, bool) { return until, time.Now().Before(until) })
	first.ObservePause(ctx, "testbank")
	require.True(t, queuePaused(t, first))
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, first.Stop(stop))
	time.Sleep(time.Until(until) + 10*time.Millisecond)

	e := w.engine(t, riverrefresh.Config{Work: true})
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Positive(t, n)
	start(t, e)
	require.Eventually(t, func() bool { return !queuePaused(t, e) }, 15*time.Second, 50*time.Millisecond, "the queue is resumed")
	require.Eventually(t, func() bool {
		var left int
		err := e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh' AND state <> 'completed'").Scan(&left)
		return err == nil && left == 0
	}, time.Minute, 50*time.Millisecond, "every job runs")
}

// TestOperatorsPauseStays: a queue paused by hand (River's UI), with no
// pause of the engines recorded, is left paused by an engine's looks.
func TestOperatorsPauseStays(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{Work: true})
	require.NoError(t, e.Migrate(ctx))
	start(t, e)
	require.NoError(t, e.Client().QueuePause(ctx, "psd2_refresh_testbank", nil))
	for range 3 {
		e.ResumeIfDue(ctx, "testbank")
	}
	assert.True(t, queuePaused(t, e))
}
