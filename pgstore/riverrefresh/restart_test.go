package riverrefresh_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// After a restart or a failover of the database, the idle connections
// of the engine's pool are dead: the first statement written on each
// fails before anything reaches the server ("broken pipe"). The engine's
// own reads of River's tables (Enqueue's of the round's jobs, QueueStats'
// counts and pauses) run again on another connection, as the pgstore
// Store's statements do, so neither method fails: every idle connection
// of the pool (four) is killed before each, which then meets four dead
// connections before a live one. The sessions are read from a store on
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
}
