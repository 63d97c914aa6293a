package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
)

// envPostgres names the variable holding the pgx connection string of
// the server the tests use.
const envPostgres = "PSD2_TEST_POSTGRES"

// server returns the connection string of the test server. Without one
// the test is skipped, except under CI (CI=true), where it fails: CI
// starts a server (.ci/services/postgres.sh), so a missing one is a
// broken run, not a reason to pass.
func server(tb testing.TB) string {
	tb.Helper()
	conn := os.Getenv(envPostgres)
	if conn != "" {
		return conn
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s is not set, and CI=true: the PostgreSQL tests must run in CI (.ci/run starts a server)", envPostgres)
	}
	tb.Skipf("no PostgreSQL server: set %s to a pgx connection string (for example \"host=/tmp/pg port=5432 user=me dbname=postgres\") to run this test", envPostgres)
	return ""
}

// newPool returns a pool on the test server, closed at the end of the
// test.
func newPool(tb testing.TB, maxConns int32) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(server(tb))
	require.NoError(tb, err)
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// testSchema returns a fresh schema name for one test, dropped (with
// everything in it) when the test ends, so that runs and parallel tests
// never see each other's rows.
func testSchema(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	schema := "pgstore_test_" + hex.EncodeToString(b[:])
	conn := server(tb)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, conn)
		if err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	return schema
}

// newStore returns a migrated Store in schema on a pool of its own.
func newStore(tb testing.TB, schema string, maxConns int32) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.New(newPool(tb, maxConns), pgstore.WithSchema(schema))
	require.NoError(tb, err)
	require.NoError(tb, st.Migrate(context.Background()))
	tb.Cleanup(st.Close)
	return st
}
