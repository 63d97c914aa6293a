// Package pgretry holds the pgstore module's one rule for a statement
// that never reached the server: after a restart or a failover of the
// database every idle connection of a pool is dead, and the first
// statement written on each fails before any byte of it reached the
// server ("write failed: broken pipe", "conn closed"), one needless
// error per connection. [Unsent] runs such an attempt again, at once, on
// another connection; nothing else is ever run again here. It is used
// by the store's transactions (pgstore's inTx), by every statement of
// the module run on a pool directly (the outbox's consumer and its
// reads, riverrefresh's own reads of River's tables: [Statement]), and
// by nothing that may have reached the server, but for the operations of
// River that are harmless to run twice as a whole ([Idempotent]: its
// migrator, a queue's pause, resume and read, the insert of jobs unique
// by their arguments). It is internal to the module.
package pgretry

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Unsent runs attempt again, at once, while it fails unsent (it reports
// true with an error for which pgconn.SafeToRetry holds) and ctx has not
// ended, at most attempts() attempts in all, and returns the last
// attempt's error as it is.
//
// Running the attempt again is safe because nothing of it was sent:
// pgx reports SafeToRetry only for an error that occurred before any
// byte of the statement was written to the server, and an attempt must
// report unsent only when that happened at its first send (for a
// transaction, the one carrying BEGIN; for a single statement, the
// statement itself), so that no statement of it ran, none can have been
// committed, and the caller's code did nothing after it (pgstore's
// Update runs fn only after its first send succeeded; the outbox runs
// a handler only once its BEGIN and its claim succeeded). An error after
// which a statement may have reached the server (sent and unanswered, a
// timeout, a server's error) is never retried here, nor is a failure at
// a later send of a transaction. ctx is checked before each retry: an
// ended ctx (whose own error pgx also calls safe to retry) ends it.
func Unsent(ctx context.Context, attempts func() int, attempt func() (unsent bool, err error)) error {
	for n := 1; ; n++ {
		unsent, err := attempt()
		if err == nil || !unsent || !pgconn.SafeToRetry(err) || ctx.Err() != nil || n >= attempts() {
			return err
		}
	}
}

// Attempts is the number of attempts Unsent makes on pool: one more than
// the pool's connections, so that the last one is on a connection the
// pool opened anew, however many of its idle ones were dead (each dead
// one fails once and is closed; pgxpool's Acquire bounds its own retries
// the same way).
func Attempts(pool *pgxpool.Pool) func() int {
	return func() int { return int(pool.Stat().MaxConns()) + 1 }
}

// Statement runs stmt, which sends one statement on pool (Exec, Query or
// QueryRow of the pool itself, or BeginTx: each acquires a connection
// of its own for it, and releases a dead one to be closed) and reads its
// result, again while it fails unsent (see Unsent): a single statement
// is its attempt's first and only send, so an error pgx calls safe to
// retry means the statement never reached the server. stmt must do
// nothing else the server sees: a second statement, or a first one sent
// on a connection or in a transaction stmt did not acquire, may follow
// one that ran.
func Statement(ctx context.Context, pool *pgxpool.Pool, stmt func() error) error {
	return Idempotent(ctx, pool, stmt) // a statement that failed unsent never ran
}

// Idempotent runs op, an operation of several statements on pool that is
// harmless to run again as a whole after any part of it ran (River's
// migrator, which applies only the versions not yet applied; a queue's
// pause or resume, which leaves the queue as one run would; an insert of
// jobs unique by their arguments, which inserts each once; a read),
// again while it fails with an error pgx calls safe to retry: a statement
// of it that never reached the server, at its first send or a later one.
// Nothing that is not so is run through it. At most Attempts(pool)
// attempts; ctx ends it as it ends Unsent.
func Idempotent(ctx context.Context, pool *pgxpool.Pool, op func() error) error {
	return Unsent(ctx, Attempts(pool), func() (bool, error) {
		err := op()
		return true, err
	})
}
