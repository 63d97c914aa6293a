package riverrefresh_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// TestQueueStats counts a bank queue's jobs by River state and reads its
// pause, as an observable gauge would at each collection.
func TestQueueStats(t *testing.T) {
	w := newWorld(t, 3)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{})
	require.NoError(t, e.Migrate(ctx))
	stats, err := e.QueueStats(ctx)
	require.NoError(t, err)
	require.Equal(t, []riverrefresh.QueueStats{{Bank: "testbank"}}, stats, "nothing enqueued yet")

	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Positive(t, n)
	stats, err = e.QueueStats(ctx)
	require.NoError(t, err)
	require.Len(t, stats, 1)
	assert.Equal(t, int64(n), stats[0].Available)
	assert.Zero(t, stats[0].Running+stats[0].Scheduled+stats[0].Retryable+stats[0].Discarded+stats[0].Cancelled)
	assert.True(t, stats[0].PausedAt.IsZero())

	// A worker works them: none left to count (completed jobs are not),
	// then its queue, which River knows once a worker has it, paused.
	worker := w.engine(t, riverrefresh.Config{Work: true})
	start(t, worker)
	require.Eventually(t, func() bool {
		stats, err = e.QueueStats(ctx)
		return err == nil && stats[0] == riverrefresh.QueueStats{Bank: "testbank"}
	}, time.Minute, 20*time.Millisecond, "the round is worked")
	require.NoError(t, e.Client().QueuePause(ctx, "psd2_refresh_testbank", nil))
	stats, err = e.QueueStats(ctx)
	require.NoError(t, err)
	assert.False(t, stats[0].PausedAt.IsZero(), "the queue is paused")
}
