package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// serviceRole creates a role of its own that owns schema (created here)
// and has no privilege on the database beyond PUBLIC's (CONNECT, TEMP:
// no CREATE), as a DBA sets up a service's role, and returns a pool whose
// connections act as it (SET ROLE). The role, and all it owns, is
// dropped when the test ends, after the pool is closed.
func serviceRole(tb testing.TB, schema string) *pgxpool.Pool {
	tb.Helper()
	conn := pgtest.Conn(tb)
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	role := "psd2_test_role_" + hex.EncodeToString(b[:])
	ident := pgx.Identifier{role}.Sanitize()
	exec := func(ctx context.Context, sql string) error {
		c, err := pgx.Connect(ctx, conn)
		if err != nil {
			return err
		}
		defer func() { _ = c.Close(context.Background()) }()
		_, err = c.Exec(ctx, sql)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(tb, exec(ctx, `CREATE ROLE `+ident+` NOLOGIN`))
	// Registered first, so it runs last: after the schema's drop and
	// the pool's close.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := exec(ctx, `DROP OWNED BY `+ident+` CASCADE; DROP ROLE `+ident); err != nil {
			tb.Errorf("dropping role %s: %v", role, err)
		}
	})
	require.NoError(tb, exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()+` AUTHORIZATION `+ident))
	cfg, err := pgxpool.ParseConfig(conn)
	require.NoError(tb, err)
	cfg.MaxConns = 4
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SET ROLE `+ident)
		return err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// A service's role commonly owns the store's schema, made for it by a
// DBA, and may not create schemas (CREATE on the database is not
// PUBLIC's). Migrate, which every replica runs at start, works there:
// it applies the migrations, and runs again with nothing to do. It
// needs CREATE on the database only when the schema is missing.
//
// Before, Migrate began with CREATE SCHEMA IF NOT EXISTS, which
// PostgreSQL checks against the database's CREATE privilege before it
// looks for the schema: "permission denied for database", at every
// start.
func TestMigrateInASchemaTheRoleOwns(t *testing.T) {
	schema := pgtest.Schema(t)
	pool := serviceRole(t, schema)
	ctx := t.Context()
	var canCreate bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT has_database_privilege(current_database(), 'CREATE')`).Scan(&canCreate))
	require.False(t, canCreate, "the role may not create schemas")

	st, err := pgstore.New(pool, pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))
	require.NoError(t, st.Migrate(ctx), "again: nothing to do")
	v, err := st.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.SchemaVersion, v)
	require.NoError(t, st.Put(ctx, "k", []byte("v"), 0))

	// A schema that is missing still needs the privilege, and says so.
	other, err := pgstore.New(pool, pgstore.WithSchema(pgtest.Schema(t)))
	require.NoError(t, err)
	t.Cleanup(other.Close)
	err = other.Migrate(ctx)
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "42501", pe.Code, "insufficient privilege")
}
