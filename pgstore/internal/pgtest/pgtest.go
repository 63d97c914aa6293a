// Package pgtest finds the PostgreSQL server the pgstore module's tests
// run on, and gives each test a pool and a schema of its own on it. It
// is test support, internal to the module.
//
// The server is named by the pgx connection string in PSD2_TEST_POSTGRES
// (CI starts a throwaway cluster and sets it: .ci/services/postgres.sh).
// Without it a test is skipped, except under CI (CI=true), where it
// fails: CI starts a server, so a missing one is a broken run, not a
// reason to pass.
package pgtest

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
)

// Env names the variable holding the pgx connection string of the test
// server.
const Env = "PSD2_TEST_POSTGRES"

// Optional returns the connection string of the test server, or "" when
// there is none outside CI. Under CI a missing server fails tb.
func Optional(tb testing.TB) string {
	tb.Helper()
	conn := os.Getenv(Env)
	if conn == "" && os.Getenv("CI") == "true" {
		tb.Fatalf("%s is not set, and CI=true: the PostgreSQL tests must run in CI (.ci/run starts a server)", Env)
	}
	return conn
}

// Conn returns the connection string of the test server. Without one
// the test is skipped outside CI and fails under CI.
func Conn(tb testing.TB) string {
	tb.Helper()
	conn := Optional(tb)
	if conn == "" {
		tb.Skipf("no PostgreSQL server: set %s to a pgx connection string (for example \"host=/tmp/pg port=5432 user=me dbname=postgres\") to run this test", Env)
	}
	return conn
}

// Pool returns a pool on the test server, closed at the end of the test.
// maxConns, when positive, bounds its connections.
func Pool(tb testing.TB, maxConns int32) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(Conn(tb))
	require.NoError(tb, err)
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// Schema returns a fresh schema name for one test, not yet created, and
// drops the schema with everything in it when the test ends, so that
// runs and parallel tests never see each other's rows.
func Schema(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	schema := "psd2_test_" + hex.EncodeToString(b[:])
	conn := Conn(tb)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, conn, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	return schema
}

// CreateSchema is Schema with the schema created.
func CreateSchema(tb testing.TB) string {
	tb.Helper()
	schema := Schema(tb)
	require.NoError(tb, exec(context.Background(), Conn(tb), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()))
	return schema
}

// exec runs sql on a connection of its own.
func exec(ctx context.Context, conn, sql string) error {
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, sql)
	if cerr := c.Close(ctx); err == nil {
		err = cerr
	}
	return err
}
