package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/store"
)

// storeFlags name the store a command reads: the file store's directory
// or a PostgreSQL connection string (-store), and pgstore's schema.
type storeFlags struct {
	loc, schema, wait string
}

func (s *storeFlags) register(fs *flag.FlagSet) {
	settingVar(fs, &s.loc, "store", "", "the service's store: the directory of its file store, or the PostgreSQL connection string (URL or key=value) of its pgstore")
	settingVar(fs, &s.schema, "schema", pgstore.DefaultSchema, "with a PostgreSQL -store: the pgstore's schema")
	registerStoreWait(fs, &s.wait)
}

// registerStoreWait defines -store-wait.
func registerStoreWait(fs *flag.FlagSet, p *string) {
	settingVar(fs, p, "storeWait", defaultStoreWait.String(), fmt.Sprintf("the longest to wait for any one answer of the store (%s to %s); past it the command ends with exit status 3", minStoreWait, maxStoreWait))
}

// storeKind is what a -store value names.
type storeKind int

const (
	storeFile     storeKind = iota // a directory
	storePostgres                  // a PostgreSQL connection string
	storeOther                     // a URL of another scheme: no store of the SDK
)

// pgKeyword matches the start of a key=value PostgreSQL connection
// string: a keyword and "=". Any keyword, not only a list of libpq's:
// libpq has dozens (gssencmode, channel_binding, keepalives,
// sslpassword, require_auth...), pgx and pgxpool add their own
// (pool_max_conns...), and a string of them taken for a directory would
// be quoted in an error, password and all. A directory named so is
// given as ./name.
var pgKeyword = regexp.MustCompile(`^\s*[a-z_][a-z0-9_]*\s*=`)

// kindOf says what loc names. A path with "://" in it is taken for a URL:
// no file store is ever made there.
func kindOf(loc string) storeKind {
	l := strings.ToLower(strings.TrimSpace(loc))
	switch {
	case strings.HasPrefix(l, "postgres://"), strings.HasPrefix(l, "postgresql://"), pgKeyword.MatchString(l):
		return storePostgres
	case strings.Contains(l, "://"):
		return storeOther
	}
	return storeFile
}

// storesOfSDK is the sentence every refusal of -store ends with.
const storesOfSDK = "a store of the SDK is the directory a service's file store wrote to, or the PostgreSQL connection string of its pgstore"

// openStore opens the store at loc for reading and writing what a
// service keeps there (the journal, the budget). It never creates one:
// a missing or foreign directory, a URL of another scheme, a database
// without a pgstore in schema, are errors (exit status 3), so that a
// wrong -store is never read as an empty store; so is a schema at a
// version this psd2 does not know (openPgstore). The connection string
// is never quoted: it may hold a password.
//
// Each answer of the store, from the first connection on, is awaited at
// most wait (storeWait).
func openStore(ctx context.Context, loc, schema string, wait time.Duration) (store.Store, func(), error) {
	switch kindOf(loc) {
	case storeOther:
		scheme, _, _ := strings.Cut(strings.TrimSpace(loc), "://")
		return nil, nil, fmt.Errorf("-store is a %s:// URL, no store of the SDK: %s", scheme, storesOfSDK)
	case storePostgres:
		st, err := openPgstore(ctx, loc, schema, wait, 1)
		if err != nil {
			return nil, nil, err
		}
		return &waitingStore{st: st, wait: wait}, st.Close, nil
	}
	fst, err := store.OpenFileStore(loc)
	switch {
	case errors.Is(err, store.ErrNoFileStore):
		return nil, nil, fmt.Errorf("-store holds no store of the SDK: %s (%s)", strings.TrimPrefix(err.Error(), store.ErrNoFileStore.Error()+": "), storesOfSDK)
	case err != nil:
		return nil, nil, err
	}
	return &waitingStore{st: fst, wait: wait}, func() {}, nil
}

// openPgstore opens the pgstore at conn in schema for a command that
// needs its schema at version need or later, and refuses every other
// schema (pgstoreVersionError), and a schema whose pgstore tables are
// missing (pgstoreTablesError): the one check of a pgstore's version and
// tables, for every command that opens one.
func openPgstore(ctx context.Context, conn, schema string, wait time.Duration, need int) (*pgstore.Store, error) {
	st, v, err := openPostgres(ctx, conn, schema, wait)
	if err != nil {
		return nil, err
	}
	if err := pgstoreVersionError(schema, v, need); err != nil {
		st.Close()
		return nil, err
	}
	if err := pgstoreTablesError(ctx, st, schema, v, wait); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// pgstoreTablesError is nil when the schema holds pgstore's key-value
// table, which every version of pgstore has; else the error that says
// the schema is not pgstore's. A schema_migrations another application
// keeps there (golang-migrate's, say) at version 1 or 2 reads as a
// pgstore version, and each command would fail later on a missing
// table. It reads one key, waiting at most wait.
func pgstoreTablesError(ctx context.Context, st *pgstore.Store, schema string, v int, wait time.Duration) error {
	gctx, end := waiting(ctx, wait)
	_, err := st.Get(gctx, "psd2/schema-check")
	err = end(err)
	var pe *pgconn.PgError
	switch {
	case err == nil, errors.Is(err, store.ErrNotStored):
		return nil
	case errors.As(err, &pe) && pe.Code == "42P01":
		return fmt.Errorf("the schema %q is not pgstore's: its schema_migrations reads as version %d, but pgstore's tables are missing (%s): "+
			"another application's migrations are kept there, or the schema was damaged; check -store and -schema", schema, v, pe.Message)
	}
	return fmt.Errorf("the PostgreSQL of -store: %s", lines(strings.TrimPrefix(err.Error(), "pgstore: ")))
}

// pgstoreVersionError is nil when a pgstore's schema at version v (as
// pgstore's Store.Version reads it) is one this psd2 reads and writes,
// need or later; else the error that says why not. 0 is a schema never
// migrated (or none at all); above pgstore.SchemaVersion, a schema a
// newer release migrated, whose keys or events may be kept otherwise (a
// listing of it could be a false all-clear, a write could break what
// that release holds), or another application's schema_migrations
// (golang-migrate's, say, whose versions are often dates).
func pgstoreVersionError(schema string, v, need int) error {
	switch {
	case v > pgstore.SchemaVersion:
		return fmt.Errorf("the schema %q is at version %d, newer than this psd2 knows (it knows versions up to %d): "+
			"either a newer release of the service migrated it (use the psd2 of that release), or its schema_migrations is another application's (check -store and -schema)",
			schema, v, pgstore.SchemaVersion)
	case v == 0:
		return fmt.Errorf("no pgstore in schema %q of the database of -store: the schema does not exist or was never migrated (the service's Store.Migrate); check -store and -schema", schema)
	case v < need:
		return fmt.Errorf("the pgstore in schema %q is at version %d; this command needs version %d: upgrade the service (its Store.Migrate)", schema, v, need)
	}
	return nil
}

// openPostgres opens the pgstore at conn in schema and reads its
// version, waiting at most wait for each.
func openPostgres(ctx context.Context, conn, schema string, wait time.Duration) (*pgstore.Store, int, error) {
	octx, end := waiting(ctx, wait)
	st, err := pgstore.Open(octx, conn, pgstore.WithSchema(schema))
	if err = end(err); err != nil {
		return nil, 0, fmt.Errorf("the PostgreSQL of -store: %s", lines(strings.TrimPrefix(err.Error(), "pgstore: ")))
	}
	vctx, end := waiting(ctx, wait)
	v, err := st.Version(vctx)
	if err = end(err); err != nil {
		st.Close()
		return nil, 0, fmt.Errorf("the PostgreSQL of -store: %s", lines(strings.TrimPrefix(err.Error(), "pgstore: ")))
	}
	return st, v, nil
}

// open opens the store of the flags, or of $PSD2_STORE.
func (s *storeFlags) open(ctx context.Context) (store.Store, func(), error) {
	if s.loc == "" {
		s.loc = os.Getenv(envStore)
	}
	if s.loc == "" {
		return nil, nil, usageError{errNoStore}
	}
	wait, err := parseStoreWait(s.wait)
	if err != nil {
		return nil, nil, err
	}
	return openStore(ctx, s.loc, s.schema, wait)
}

var errNoStore = errors.New("give -store: the directory of the service's file store, or the PostgreSQL connection string of its pgstore (or set " + envStore + ")")

// lines puts a message of several lines (pgx names each address it
// tried on a line of its own) on one, without repeats.
func lines(msg string) string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}
