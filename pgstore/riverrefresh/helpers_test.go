package riverrefresh_test

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
// the server the tests use (.ci/services/postgres.sh sets it).
const envPostgres = "PSD2_TEST_POSTGRES"

// server returns the connection string of the test server. Without one
// the test is skipped, except under CI (CI=true), where it fails.
func server(tb testing.TB) string {
	tb.Helper()
	if conn := os.Getenv(envPostgres); conn != "" {
		return conn
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s is not set, and CI=true: the River engine's tests must run in CI (.ci/run starts a server)", envPostgres)
	}
	tb.Skipf("no PostgreSQL server: set %s to a pgx connection string to run this test", envPostgres)
	return ""
}

// newPool returns a pool on the test server whose connections use schema
// first, closed at the end of the test.
func newPool(tb testing.TB, schema string) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(server(tb))
	require.NoError(tb, err)
	cfg.MaxConns = 12
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// testSchema creates a fresh schema, dropped with everything in it when
// the test ends.
func testSchema(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	schema := "riverrefresh_test_" + hex.EncodeToString(b[:])
	conn := server(tb)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, conn)
	require.NoError(tb, err)
	_, err = c.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	require.NoError(tb, err)
	require.NoError(tb, c.Close(ctx))
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

// newStore returns a migrated pgstore Store in schema on pool.
func newStore(tb testing.TB, pool *pgxpool.Pool, schema string) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.New(pool, pgstore.WithSchema(schema))
	require.NoError(tb, err)
	require.NoError(tb, st.Migrate(context.Background()))
	return st
}
