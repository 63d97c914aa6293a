package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
)

// After a restart or a failover of the database, the idle connections
// of the pool are dead: the first statement written on each fails before
// anything reaches the server ("broken pipe", "conn closed"). The store
// runs such a statement again on another connection, so no method fails:
// here every idle connection of the pool (four) is killed before each
// method, which then meets four dead connections before a live one.
func TestRestartIdleConnections(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := pgtest.Conn(t)
	schema := pgtest.Schema(t)
	const conns = 4

	cfg, err := pgxpool.ParseConfig(conn)
	require.NoError(t, err)
	cfg.MaxConns = conns
	// The application name finds the pool's backends; no ping on
	// acquire (pgxpool pings a connection idle for over a second) keeps
	// the dead connections for the store to meet, as on a busy pool.
	cfg.ConnConfig.RuntimeParams["application_name"] = schema
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	st, err := pgstore.New(pool, pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))

	admin, err := pgx.Connect(ctx, conn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close(context.Background()) })

	// restart fills the pool with conns new idle connections and kills
	// their backends, as a restart of the server does.
	restart := func(t *testing.T) {
		t.Helper()
		pool.Reset() // whatever a method before left
		held := make([]*pgxpool.Conn, conns)
		for i := range held {
			held[i], err = pool.Acquire(ctx)
			require.NoError(t, err)
		}
		for _, c := range held {
			c.Release()
		}
		require.Equal(t, int32(conns), pool.Stat().IdleConns())
		var killed int
		require.NoError(t, admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, schema).Scan(&killed))
		require.Equal(t, conns, killed)
		require.Eventually(t, func() bool {
			var left int
			require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, schema).Scan(&left))
			return left == 0
		}, 10*time.Second, 10*time.Millisecond, "the backends exit")
		// A backend leaves pg_stat_activity just before its process
		// exits and its socket closes; a write before that would reach
		// it (and read its FATAL message) instead of failing unsent.
		time.Sleep(time.Second) // a loaded machine: room to spare
	}

	// seed writes and reads on a pool of its own, which no restart
	// touches, so that each method below is checked alone.
	seed, err := pgstore.New(pgtest.Pool(t, 1), pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(seed.Close)

	restart(t)
	assert.NoError(t, st.Put(ctx, "k", []byte("v1"), 0), "put")
	v, err := seed.Get(ctx, "k")
	assert.NoError(t, err, "put")
	assert.Equal(t, []byte("v1"), v, "put")

	require.NoError(t, seed.Put(ctx, "k", []byte("v1"), 0))
	restart(t)
	v, err = st.Get(ctx, "k")
	assert.NoError(t, err, "get")
	assert.Equal(t, []byte("v1"), v, "get")

	restart(t)
	calls := 0
	assert.NoError(t, st.Update(ctx, "k", func(old []byte, found bool) ([]byte, time.Duration, error) {
		calls++
		assert.True(t, found)
		assert.Equal(t, []byte("v1"), old)
		return []byte("v2"), 0, nil
	}), "update")
	assert.LessOrEqual(t, calls, 1, "fn runs at most once: it never ran on a dead connection")

	require.NoError(t, seed.Put(ctx, "k", []byte("v2"), 0))
	restart(t)
	var keys []string
	var keysErr error
	for k, err := range st.Keys(ctx, "") {
		if err != nil {
			keysErr = err
			break
		}
		keys = append(keys, k)
	}
	assert.NoError(t, keysErr, "keys")
	assert.Equal(t, []string{"k"}, keys, "keys")

	restart(t)
	v, err = st.Take(ctx, "k")
	assert.NoError(t, err, "take")
	assert.Equal(t, []byte("v2"), v, "take")

	require.NoError(t, seed.Put(ctx, "d", []byte("x"), 0))
	restart(t)
	assert.NoError(t, st.Delete(ctx, "d"), "delete")
	_, err = seed.Get(ctx, "d")
	assert.ErrorIs(t, err, store.ErrNotStored, "delete")

	restart(t)
	_, err = st.Cleanup(ctx)
	assert.NoError(t, err, "cleanup")

	restart(t)
	n, err := st.Version(ctx)
	assert.NoError(t, err, "version")
	assert.Positive(t, n, "version")

	restart(t)
	assert.NoError(t, st.Migrate(ctx), "migrate")
}
