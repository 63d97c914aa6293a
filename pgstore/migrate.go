package pgstore

import (
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrationFiles are the schema's versions, applied in order: NNNN_name.sql,
// with {{schema}} standing for the quoted schema name. A released file is
// never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// SchemaVersion is the newest schema version this package knows: the
// version [Store.Migrate] brings a schema to, and the highest that
// [Store.Version] reads from a schema this release migrated. A schema at
// a higher version was migrated by a newer release: Migrate refuses it,
// and a tool of this release should not read or change it.
const SchemaVersion = 3

// migration is one embedded version.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, n := range names {
		base := path.Base(n)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("pgstore: migration %s is not named NNNN_name.sql", base)
		}
		b, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("pgstore: two migrations with version %d", out[i].version)
		}
	}
	return out, nil
}

// lockKey is the key of the advisory lock that serialises the Migrate
// calls of one schema across every replica.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("github.com/tppkit/psd2/pgstore migrate " + schema))
	return int64(h.Sum64())
}

// Migrate brings the store's schema to the version this package embeds:
// it creates the schema and its schema_migrations table when missing and
// applies, in order and each once, the migrations not yet recorded there.
// Everything runs in one transaction that first takes a transaction-level
// advisory lock (pg_advisory_xact_lock) of the schema, so many replicas
// may call Migrate at start-up at the same time: one applies, the others
// wait and then find nothing to do. A failed migration leaves the schema
// as it was. A database whose schema has a version this package does not
// know (a newer release ran) is left alone and reported as an error.
// Creating the schema needs the CREATE privilege on the database, and
// creating tables the CREATE privilege on the schema (its owner has it);
// Migrate asks for neither when there is nothing to create.
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	schema := pgx.Identifier{s.schema}.Sanitize()
	table := pgx.Identifier{s.schema, "schema_migrations"}.Sanitize()
	err = s.inTx(ctx, func(t *tx) error {
		// Each statement after the lock reads what the replica that held
		// it committed: READ COMMITTED takes a snapshot per statement.
		if err := t.send(ctx, false, func(b *pgx.Batch) {
			b.Queue(`SELECT pg_advisory_xact_lock($1)`, lockKey(s.schema))
		}); err != nil {
			return err
		}
		tx := t.conn
		// Each is created only when missing: PostgreSQL checks CREATE
		// SCHEMA IF NOT EXISTS against the database's CREATE privilege
		// (and CREATE TABLE IF NOT EXISTS against the schema's) before
		// it looks, and a service's role that owns or uses a schema a
		// DBA made for it commonly has neither.
		var hasSchema, hasTable bool
		if err := tx.QueryRow(ctx, `SELECT to_regnamespace($1) IS NOT NULL, to_regclass($2) IS NOT NULL`,
			schema, table).Scan(&hasSchema, &hasTable); err != nil {
			return err
		}
		if !hasSchema {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
				return err
			}
		}
		if !hasTable {
			if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
				version    integer PRIMARY KEY,
				name       text NOT NULL,
				applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `SELECT version FROM `+table)
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return err
		}
		latest := ms[len(ms)-1].version
		for _, v := range applied {
			if int(v) > latest {
				return fmt.Errorf("the schema is at version %d, newer than this package's %d", v, latest)
			}
		}
		for _, m := range ms {
			if slices.Contains(applied, int32(m.version)) {
				continue
			}
			if _, err := tx.Exec(ctx, strings.ReplaceAll(m.sql, "{{schema}}", schema)); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+table+` (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap(ctx, "migrate", err)
	}
	return nil
}

// Version returns the newest migration recorded in the schema, 0 when
// Migrate never ran.
func (s *Store) Version(ctx context.Context) (int, error) {
	table := pgx.Identifier{s.schema, "schema_migrations"}.Sanitize()
	var v int
	err := s.inTx(ctx, func(t *tx) error {
		v = 0
		var exists bool
		if err := t.send(ctx, false, func(b *pgx.Batch) {
			b.Queue(`SELECT to_regclass($1) IS NOT NULL`, table).QueryRow(func(row pgx.Row) error { return row.Scan(&exists) })
		}); err != nil || !exists {
			return err
		}
		return t.send(ctx, true, func(b *pgx.Batch) {
			b.Queue(`SELECT coalesce(max(version), 0) FROM ` + table).QueryRow(func(row pgx.Row) error { return row.Scan(&v) })
		})
	})
	if err != nil {
		return 0, wrap(ctx, "version", err)
	}
	return v, nil
}
