package riverrefresh_test

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/store"
)

// After a restart or a failover of the database, the idle connections
// of the engine's pool are dead: the first statement written on each
// fails before anything reaches the server ("broken pipe"). The engine's
// own reads of River's tables (Enqueue's of the round's jobs, QueueStats'
// counts and pauses) run again on another connection, as the pgstore
// Store's statements do, so neither method fails: every idle connection
// of the pool (four) is killed before each, which then meets four dead
// connections before a live one. Migrate, which every replica calls at
// start, runs again as a whole when its first statement on the pool never
// reached the server (River's migrator is idempotent, and the replicas'
// lock is held on a connection of its own). The sessions are read from a store on
// a pool of its own, which no restart touches.
func TestRestartIdleConnections(t *testing.T) {
	w := newWorld(t, 3)
	ctx := t.Context()
	pool, restart := pgtest.RestartPool(t, 4)
	e := w.engineOnPool(t, riverrefresh.Config{}, pool, w.store)
	require.NoError(t, e.Migrate(ctx))

	restart(t)
	n, err := e.Enqueue(ctx, "testbank")
	assert.NoError(t, err, "enqueue")
	assert.Equal(t, len(w.ids), n, "enqueue")

	restart(t)
	stats, err := e.QueueStats(ctx)
	assert.NoError(t, err, "queue stats")
	if assert.Len(t, stats, 1, "queue stats") {
		assert.Equal(t, riverrefresh.QueueStats{Bank: "testbank", Available: int64(len(w.ids))}, stats[0], "queue stats")
	}

	restart(t)
	_, err = e.Cleanup(ctx)
	assert.NoError(t, err, "cleanup")

	// A replica started after the restart migrates (nothing to do) on
	// the same pool: River's migrator reads its versions there.
	restart(t)
	assert.NoError(t, e.Migrate(ctx), "migrate")
}

// After a restart of the database a bank's pause still pauses its queue
// at once: River's pause of the queue runs again on another connection
// when its statement met a dead one (pausing twice leaves the queue as
// pausing once does). Before, the pause failed on the first dead
// connection and waited for the next look of the resume loop, while the
// bank's jobs went on.
func TestRestartPausesTheQueue(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	// An engine on a pool no restart touches makes the bank's queue in
	// River and reads it.
	other := w.engine(t, riverrefresh.Config{Work: true})
	require.NoError(t, other.Migrate(ctx))
	require.NoError(t, other.Client().Start(ctx))
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = other.Client().Stop(stop)
	})
	require.Eventually(t, func() bool {
		_, err := other.Client().QueueGet(ctx, "psd2_refresh_testbank")
		return err == nil
	}, time.Minute, 20*time.Millisecond, "River made the bank's queue")

	pool, restart := pgtest.RestartPool(t, 4)
	// The replica's own store (where the pause is recorded) is on a pool
	// of its own: its statements do not meet River's dead connections
	// first.
	e := w.engineOnPools(t, riverrefresh.Config{Work: true}, pool, newPool(t), w.store)
	until := time.Now().Add(time.Hour)
	e.SetPauseSource("testbank", func(context.Context) (time.Time, bool) { return until, true })
	restart(t)
	e.ObservePause(ctx, "testbank")
	assert.True(t, queuePaused(t, other), "the queue is paused at the pause's first sight")
}

// keysHook is a store that runs before once, at the first Keys.
type keysHook struct {
	store.Store
	once   sync.Once
	before func()
}

func (k *keysHook) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	k.once.Do(k.before)
	return k.Store.Keys(ctx, prefix)
}

// The database restarts while Enqueue lists the sessions, after its read
// of the round's jobs: River's insert of the jobs meets the dead
// connections. It runs again at once on another connection (the jobs are
// unique by their arguments, so an insert run twice inserts each once),
// and Enqueue inserts every job. Before, it failed and the round waited
// for the next schedule.
func TestRestartDuringEnqueue(t *testing.T) {
	w := newWorld(t, 3)
	ctx := t.Context()
	pool, restart := pgtest.RestartPool(t, 4)
	sessions := &keysHook{Store: w.store, before: func() { restart(t) }}
	e := w.engineOnPools(t, riverrefresh.Config{}, pool, newPool(t), sessions)
	require.NoError(t, e.Migrate(ctx))
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err, "enqueue")
	assert.Equal(t, len(w.ids), n)
	var jobs int
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh'").Scan(&jobs))
	assert.Equal(t, len(w.ids), jobs, "each job once")
}
