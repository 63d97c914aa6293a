package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
)

// unknownSchemas returns two migrated schemas this psd2 must not read:
// one a newer release migrated (a version above pgstore.SchemaVersion),
// one whose schema_migrations is another application's (golang-migrate's
// shape, a date for a version). Both are dropped at the end of the test.
func unknownSchemas(t *testing.T, conn string) (newer, other string) {
	t.Helper()
	ctx := t.Context()
	_, newer = outboxSchema(t, conn)
	_, other = outboxSchema(t, conn)
	c, err := pgx.Connect(ctx, conn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(ctx, `INSERT INTO `+pgx.Identifier{newer, "schema_migrations"}.Sanitize()+
		` (version, name) VALUES ($1, 'future')`, pgstore.SchemaVersion+1)
	require.NoError(t, err)
	table := pgx.Identifier{other, "schema_migrations"}.Sanitize()
	_, err = c.Exec(ctx, `DROP TABLE `+table+`;
		CREATE TABLE `+table+` (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
		INSERT INTO `+table+` VALUES (20240101120000, false)`)
	require.NoError(t, err)
	return newer, other
}

// TestStoreCommandsRefuseAnUnknownSchema: every command that opens -store
// (journal list, show, settle, resolve; budget; reconcile; health)
// refuses a schema a newer release migrated, or whose schema_migrations
// is another application's, as psd2 outbox does: exit status 3, nothing
// on stdout, the schema and the version named. On the code before, journal
// list printed "0 payment(s) in doubt" and exited 0.
func TestStoreCommandsRefuseAnUnknownSchema(t *testing.T) {
	conn := testPostgres(t)
	s, _, certFile, keyFile, _ := tppFiles(t)
	newer, other := unknownSchemas(t, conn)
	bank := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile}
	commands := [][]string{
		{"journal", "list"},
		{"journal", "list", "--json"},
		{"journal", "list", "-all"},
		{"journal", "show", uuid.NewString()},
		{"journal", "settle", "-by", "ops", "-reason", "checked", uuid.NewString()},
		append([]string{"journal", "resolve", uuid.NewString()}, bank...),
		append([]string{"budget", "-account", "acc-1"}, bank...),
		{"reconcile"},
		{"reconcile", "--json"},
		append([]string{"health"}, bank...),
		append([]string{"health", "report", "-from", "2026-01-01"}, bank...),
	}
	for schema, version := range map[string]int{newer: pgstore.SchemaVersion + 1, other: 20240101120000} {
		for _, cmd := range commands {
			args := append(append([]string{}, cmd...), "-store", conn, "-schema", schema)
			out, stderr, code := psd2(t, args...)
			assert.Equal(t, exitRuntime, code, "%v: %s", cmd, stderr)
			assert.Empty(t, out, "%v", cmd)
			assert.Contains(t, stderr, fmt.Sprintf("schema %q is at version %d", schema, version), "%v", cmd)
			assert.Contains(t, stderr, "this psd2 knows", "%v", cmd)
			assert.NotContains(t, stderr, conn, "%v", cmd)
		}
	}
}

// TestStoreCommandsOfASchemaNeverMigrated: a schema that exists but holds
// no pgstore (Store.Migrate never ran there) is refused by every command
// that opens -store, outbox's too, in one message that says so.
func TestStoreCommandsOfASchemaNeverMigrated(t *testing.T) {
	conn := testPostgres(t)
	s, _, certFile, keyFile, _ := tppFiles(t)
	ctx := t.Context()
	c, err := pgx.Connect(ctx, conn)
	require.NoError(t, err)
	defer c.Close(context.Background())
	schema := "psd2_test_empty_" + uuid.NewString()[:8]
	_, err = c.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	require.NoError(t, err)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), conn)
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	bank := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile}
	for _, cmd := range [][]string{
		{"journal", "list"}, {"journal", "list", "--json"}, {"reconcile", "--json"},
		append([]string{"budget", "-account", "acc-1"}, bank...), append([]string{"health"}, bank...),
		{"outbox", "list"}, {"outbox", "list", "--json"},
	} {
		out, stderr, code := psd2(t, append(append([]string{}, cmd...), "-store", conn, "-schema", schema)...)
		assert.Equal(t, exitRuntime, code, "%v: %s", cmd, stderr)
		assert.Empty(t, out, "%v", cmd)
		assert.Contains(t, stderr, fmt.Sprintf("no pgstore in schema %q", schema), "%v", cmd)
		assert.Contains(t, stderr, "never migrated", "%v", cmd)
	}
}
