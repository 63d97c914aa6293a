package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// RestartPool returns a pool of conns connections on the test server,
// closed at the end of the test, and restart, which leaves it as a
// restart or a failover of the server does: it fills the pool with conns
// new idle connections and kills their backends (pg_terminate_backend),
// so that the first statement written on each fails before anything
// reaches the server ("write failed: broken pipe"). The pool never pings
// a connection on acquire (pgxpool pings one idle for over a second): it
// keeps the dead connections for the code under test to meet, as a busy
// pool does. Only the pool's own backends are killed (found by an
// application name of their own), never another test's.
func RestartPool(tb testing.TB, conns int32) (pool *pgxpool.Pool, restart func(testing.TB)) {
	tb.Helper()
	ctx := context.Background()
	conn := Conn(tb)
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	name := "psd2_test_restart_" + hex.EncodeToString(b[:])

	cfg, err := pgxpool.ParseConfig(conn)
	require.NoError(tb, err)
	cfg.MaxConns = conns
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err = pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)

	admin, err := pgx.Connect(ctx, conn)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = admin.Close(context.Background()) })

	return pool, func(tb testing.TB) {
		tb.Helper()
		pool.Reset() // whatever a method before left
		held := make([]*pgxpool.Conn, conns)
		for i := range held {
			c, err := pool.Acquire(ctx)
			require.NoError(tb, err)
			held[i] = c
		}
		for _, c := range held {
			c.Release()
		}
		require.Equal(tb, conns, pool.Stat().IdleConns())
		var killed int32
		require.NoError(tb, admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&killed))
		require.Equal(tb, conns, killed)
		require.Eventually(tb, func() bool {
			var left int
			require.NoError(tb, admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&left))
			return left == 0
		}, 10*time.Second, 10*time.Millisecond, "the backends exit")
		// A backend leaves pg_stat_activity just before its process
		// exits and its socket closes; a write before that would reach
		// it (and read its FATAL message) instead of failing unsent.
		time.Sleep(time.Second) // a loaded machine: room to spare
	}
}
