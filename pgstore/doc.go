// Package pgstore keeps the SDK's shared state on PostgreSQL: PSU
// sessions and pending SCAs (package sca), the without-PSU call budget
// (package accounts, through the client's store) and the create journal
// (package journal), so that several replicas of a TPP's service share
// them. It is its own Go module, github.com/tppkit/psd2/pgstore, so that
// the core module carries no database driver; it uses jackc/pgx v5.
//
//	st, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"))
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//	if err := st.Migrate(ctx); err != nil { // every replica may, at once
//		return err
//	}
//	c, err := client.New(bankURL, creds, client.WithStore(st))
//	mgr, err := sca.NewManager(flow, st)
//	j, err := journal.New(st, journal.WithClient(c))
//
// # The store
//
// [Store] implements store.Store with one table, kv (key text
// COLLATE "C" primary key, value bytea, expires_at timestamptz), in the
// schema [DefaultSchema] ("psd2") or the one of [WithSchema]. Take is one
// DELETE ... RETURNING, so that a pending SCA is completed by exactly one
// replica; Update locks the key's row in a transaction (creating an
// invisible placeholder row when the key is missing, so that a missing
// key is locked too), so that two replicas never both take an account's
// last budget call. A value's time to live becomes expires_at, computed
// by the server's clock ([WithClock] gives a Go clock instead, for tests
// and soaks that simulate days); expired rows are invisible at once and
// deleted in bounded batches by [Store.Cleanup], which a Store also
// starts in the background every 512 writes, and which riverrefresh's
// scheduler runs every hour. It passes the conformance suite of package
// store/storetest, races between two pools included.
//
// # Isolation and retries
//
// Every statement of the store, single
// statements included, runs in a transaction begun with BEGIN ISOLATION
// LEVEL READ COMMITTED (sent in the same round trip as the first
// statement), so that a database or role whose default_transaction_isolation
// is repeatable read or serializable does not turn the waits of racing
// replicas into serialization failures: concurrent Takes of a key still
// give the value to one and store.ErrNotStored to the others, and
// concurrent Updates all land. The level is named per transaction, not
// set on the session, so that it holds on a caller's pool and behind a
// PgBouncer-style pooler in transaction mode. A transaction that fails
// with a serialization failure (SQLSTATE 40001) or a deadlock (40P01) was
// rolled back by the server and runs again, at most 10 times in all,
// after a random pause of a few milliseconds that grows with each retry
// and ends early with ctx; Update's fn then runs again, which the
// store.Store contract allows. When every attempt fails the method
// returns a [ContentionError].
//
// # Migrations
//
// The schema ships as versioned SQL files embedded in the
// package. [Store.Migrate] applies those not yet recorded in the schema's
// schema_migrations table, in one transaction holding an advisory lock
// (pg_advisory_xact_lock), so every replica may run it at start-up at the
// same time; [Store.Version] reports the schema's version.
//
// # Lifecycle events
//
// [Store.Outbox] is the outbox of package events, an
// events.Sink for an events.Emitter. Consumers on any replica take its
// events with [Outbox.Consume] or [Outbox.Run] (SELECT ... FOR UPDATE
// SKIP LOCKED), each event once: the handler runs in a savepoint per
// event, its writes through the consumer's transaction commit with the
// delivery or, when it fails, are rolled back; a consumer that dies
// before committing hands its batch back. A failed event is taken again
// after a growing pause, and becomes a dead letter after
// [DefaultMaxAttempts] failures ([WithOutboxMaxAttempts]), so one event
// the handler always refuses never stops the others (an event stored
// out of the outbox's bounds, by an earlier release or by hand, is a
// dead letter at once, never given to the handler:
// [ErrStoredEventRefused]);
// [Outbox.DeadLetters], [Outbox.Retry] and [Outbox.Discard] (and the
// command psd2 outbox) deal with it; [Outbox.List] reads the counts and
// the dead letters from one snapshot, so that they agree. The events of one subject (one
// consent reference, one payment) are delivered in the order they were
// published, and a dead letter holds the later ones of its subject.
//
// Metrics: [Outbox.Stats] counts events by state (pending, retrying,
// dead, delivered, the oldest pending), a callback for an OpenTelemetry
// observable gauge; [WithOutboxObserver] reports every attempt, for a
// counter. The module itself does not import OpenTelemetry. Migration
// 0002 adds the table, 0003 its attempts, dead letters and keys.
//
// # Connections
//
// [Open] makes a pgx pool from a connection string (URL or
// key=value, including host=/path for a Unix socket); [New] uses the
// caller's *pgxpool.Pool (its size bounds the store's concurrency). The
// connection string is never quoted in errors: it may hold a password.
//
// # Tests
//
// The module's tests and benchmarks read a connection string
// from PSD2_TEST_POSTGRES and use a schema of their own, dropped at the
// end; without the variable they skip, except when CI=true, where they
// fail. One internal package, pgstore/internal/pgtest, does this for
// all of them. .ci/services/postgres.sh starts a throwaway server.
package pgstore
