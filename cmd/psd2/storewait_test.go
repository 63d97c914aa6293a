package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockTables takes an ACCESS EXCLUSIVE lock on the tables of schema (all
// but schema_migrations unless all), in a transaction held until the end
// of the test: every query of another session on them waits.
func lockTables(t *testing.T, conn, schema string, all bool) {
	t.Helper()
	ctx := t.Context()
	c, err := pgx.Connect(ctx, conn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	rows, err := c.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, schema)
	require.NoError(t, err)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	var tables []string
	for _, n := range names {
		if all || n != "schema_migrations" {
			tables = append(tables, pgx.Identifier{schema, n}.Sanitize())
		}
	}
	require.NotEmpty(t, tables)
	tx, err := c.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	_, err = tx.Exec(ctx, `LOCK TABLE `+strings.Join(tables, ", ")+` IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
}

// TestStoreCommandsOnAHungDatabase: a database that takes connections
// and answers no query on the store's tables holds no command past
// -store-wait: each ends with exit status 3 and says the store did not
// answer, nothing on stdout. Before -store-wait they waited for ever.
func TestStoreCommandsOnAHungDatabase(t *testing.T) {
	t.Parallel()
	conn := testPostgres(t)
	s, _, certFile, keyFile, _ := tppFiles(t)
	bank := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile}
	for _, all := range []bool{false, true} {
		_, schema := outboxSchema(t, conn)
		lockTables(t, conn, schema, all)
		for _, args := range [][]string{
			{"journal", "list"},
			append([]string{"budget", "-account", "acc-1"}, bank...),
			append([]string{"health"}, bank...),
			{"outbox", "list"},
			{"reconcile", "-from", "2026-01-01", "-to", "2026-01-02"},
		} {
			name := strings.Join(args, " ")
			if all {
				name += " (the version too)"
			}
			start := time.Now()
			out, errOut, code := psd2In(t, t.TempDir(), nil, append(args, "-store", conn, "-schema", schema, "-store-wait", "1s")...)
			took := time.Since(start)
			if strings.Contains(errOut, "needs") || code == exitUsage {
				t.Fatalf("%s: %d %s", name, code, errOut)
			}
			assert.Equal(t, exitRuntime, code, "%s: %s", name, errOut)
			assert.Contains(t, errOut, "did not answer within 1s", name)
			assert.Empty(t, out, name)
			assert.Less(t, took, 20*time.Second, name)
		}
	}
}

func TestStoreWaitIsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, w := range []string{"0s", "500ms", "2h", "soon"} {
		_, errOut, code := psd2In(t, t.TempDir(), nil, "journal", "list", "-store", dir, "-store-wait", w)
		assert.Equal(t, exitUsage, code, "%s: %s", w, errOut)
		assert.Contains(t, errOut, "-store-wait", w)
	}
}
