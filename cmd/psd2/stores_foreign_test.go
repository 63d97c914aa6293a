package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreCommandsRefuseAnotherApplicationsMigrations: a schema whose
// schema_migrations is another application's (golang-migrate's shape)
// at version 1 or 2, a version pgstore has too, and which holds no
// pgstore table, is refused by the commands that open -store as not
// pgstore's: exit status 3, nothing on stdout, the schema named, not a
// later `relation "…kv" does not exist`.
func TestStoreCommandsRefuseAnotherApplicationsMigrations(t *testing.T) {
	conn := testPostgres(t)
	s, _, certFile, keyFile, _ := tppFiles(t)
	ctx := t.Context()
	bank := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile}
	for _, version := range []int{1, 2} {
		_, schema := outboxSchema(t, conn)
		c, err := pgx.Connect(ctx, conn)
		require.NoError(t, err)
		table := pgx.Identifier{schema, "schema_migrations"}.Sanitize()
		_, err = c.Exec(ctx, fmt.Sprintf(`DROP TABLE %s, %s, %s;
			CREATE TABLE %s (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
			INSERT INTO %s VALUES (%d, false)`, table, pgx.Identifier{schema, "kv"}.Sanitize(),
			pgx.Identifier{schema, "outbox"}.Sanitize(), table, table, version))
		require.NoError(t, err)
		require.NoError(t, c.Close(context.Background()))
		for _, cmd := range [][]string{
			{"journal", "list"}, {"journal", "list", "--json"}, {"reconcile"},
			append([]string{"budget", "-account", "acc-1"}, bank...), append([]string{"health"}, bank...),
		} {
			out, stderr, code := psd2(t, append(append([]string{}, cmd...), "-store", conn, "-schema", schema)...)
			assert.Equal(t, exitRuntime, code, "v%d %v: %s", version, cmd, stderr)
			assert.Empty(t, out, "v%d %v", version, cmd)
			assert.Contains(t, stderr, fmt.Sprintf("schema %q is not pgstore's", schema), "v%d %v", version, cmd)
			assert.NotContains(t, stderr, "does not exist (SQLSTATE", "v%d %v", version, cmd)
		}
	}
}
