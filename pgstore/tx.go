package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/internal/backoff"
	"github.com/tppkit/psd2/pgstore/internal/pgretry"
)

// beginSQL opens every transaction of the store, single statements
// included: the store's locking (Update's row lock, Take's DELETE ...
// RETURNING, Migrate's advisory lock followed by fresh reads) is written
// for READ COMMITTED, where a statement that meets a row another
// transaction is changing waits for it and then works on the committed
// row. Under REPEATABLE READ or SERIALIZABLE the same race ends in a
// serialization failure (SQLSTATE 40001) instead, and Migrate would read
// a snapshot taken before it waited for the lock. Operators often make
// one of those the default of a database, a role or a server
// (default_transaction_isolation), so the store never inherits the
// default.
//
// The level is named in each transaction's BEGIN rather than set on the
// session (SET SESSION CHARACTERISTICS, a startup parameter or an
// AfterConnect hook) because a session setting does not hold where the
// store cannot see: with [New] the pool is the caller's, and a
// PgBouncer-style pooler in transaction mode hands each transaction to
// whichever server connection is free (a SET on one would not follow,
// and would leak to the pooler's other clients), resets sessions with
// DISCARD ALL, and drops startup options it does not know. A BEGIN with
// its level is part of the transaction itself: it needs no state, costs
// no extra round trip (it goes in the same batch as the first statement)
// and works on any server connection. SET LOCAL would too, but is one
// more statement.
const beginSQL = "BEGIN ISOLATION LEVEL READ COMMITTED"

// Retries of a transaction that failed with a serialization failure or a
// deadlock: at most maxAttempts attempts in all, the n-th retry after a
// pause drawn between half and all of min(retryBase·2ⁿ⁻¹, retryMax).
const (
	maxAttempts = 10
	retryBase   = 2 * time.Millisecond
	retryMax    = 100 * time.Millisecond
)

// SQLSTATEs after which the server has rolled the transaction back and
// running it again is safe.
const (
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

// ContentionError is the error of a store method (matched with
// errors.As) whose transaction failed with a serialization failure
// (SQLSTATE 40001) or a deadlock (SQLSTATE 40P01) on every one of its
// attempts. Nothing it did was committed. Under the READ COMMITTED
// transactions the store runs, it is rare: it takes a deadlock with
// another application's transaction, or a conflict with recovery on a
// hot standby, repeated on every attempt.
type ContentionError struct {
	// Attempts is the number of times the transaction ran.
	Attempts int
	// Err is the last attempt's error, a *pgconn.PgError.
	Err error
}

// Error implements error.
func (e *ContentionError) Error() string {
	return fmt.Sprintf("gave up after %d attempts, each a serialization failure or deadlock: %v", e.Attempts, e.Err)
}

// Unwrap returns the last attempt's error.
func (e *ContentionError) Unwrap() error { return e.Err }

// retryable reports whether err is a serialization failure or a
// deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == serializationFailure || pe.Code == deadlockDetected)
}

// retryWait is the pause before the n-th retry (n >= 1): between half and
// all of min(retryBase·2ⁿ⁻¹, retryMax), so that transactions that failed
// together do not collide again.
func retryWait(n int) time.Duration {
	return backoff.Jitter(backoff.Exp(n-1, retryBase, retryMax))
}

// retry runs attempt until it succeeds or fails with an error that is
// not retryable, at most maxAttempts times, pausing (see retryWait)
// between attempts. It returns attempt's error as it is, or a
// *ContentionError when every attempt failed with a retryable one. When
// ctx has ended, during an attempt or a pause, it returns the last error
// at once (the caller's wrap makes it match ctx's error).
func retry(ctx context.Context, attempt func() error) error {
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || !retryable(err) {
			return err
		}
		if n >= maxAttempts {
			return &ContentionError{Attempts: n, Err: err}
		}
		if !backoff.Sleep(ctx, retryWait(n)) {
			return err
		}
	}
}

// tx is one attempt of a store transaction, on one connection of the
// pool.
type tx struct {
	conn  *pgxpool.Conn
	begun bool // BEGIN was sent
	ended bool // COMMIT was sent
	// unsent: the first send (the one with BEGIN) failed before any of
	// it reached the server (pgconn.SafeToRetry): nothing of the
	// transaction ran (see pgretry.Unsent).
	unsent bool
}

// send sends the statements queue adds to a batch, in one round trip:
// preceded by beginSQL when they are the transaction's first, and
// followed by COMMIT when last is true. Statements run on t.conn
// directly must come after a send.
func (t *tx) send(ctx context.Context, last bool, queue func(b *pgx.Batch)) error {
	b := &pgx.Batch{}
	first := !t.begun
	if first {
		b.Queue(beginSQL)
		t.begun = true
	}
	if queue != nil {
		queue(b)
	}
	if last {
		b.Queue("COMMIT")
		t.ended = true
	}
	err := t.conn.SendBatch(ctx, b).Close()
	if err != nil && first && pgconn.SafeToRetry(err) {
		t.unsent = true
	}
	return err
}

// inTx runs body in a READ COMMITTED transaction (see beginSQL) on a
// connection of the pool, committing it when body returns nil without
// having sent COMMIT, and rolling it back when body fails. A transaction
// that failed with a serialization failure or a deadlock runs again, on
// a connection acquired anew, up to maxAttempts times (see retry): body
// must be ready to run more than once. A transaction whose first send
// never reached the server (a dead connection after a restart or a
// failover: see pgretry.Unsent) runs again at once, on another
// connection, at most the pool's size plus one times. Every statement of
// the store goes through here; the outbox's consumer and its reads,
// which run on the pool directly, go through s.statement and s.begin,
// under the same rule.
func (s *Store) inTx(ctx context.Context, body func(t *tx) error) error {
	return retry(ctx, func() error {
		return pgretry.Unsent(ctx, pgretry.Attempts(s.pool), func() (bool, error) { return s.attemptTx(ctx, body) })
	})
}

// statement runs stmt, one statement on the pool outside the store's
// transactions (a read of the outbox, a batch of its prune), again at
// once on another connection while it fails before reaching the server
// (pgretry.Statement: a dead connection after a restart or a failover).
func (s *Store) statement(ctx context.Context, stmt func() error) error {
	return pgretry.Statement(ctx, s.pool, stmt)
}

// begin begins a transaction of opts on a connection of the pool, for
// the outbox's transactions that a pgx.Tx runs (Consume's, List's): a
// BEGIN that failed before reaching the server (a dead connection) is
// sent again at once on another connection, as s.statement does. Only
// the BEGIN is: a failure of the transaction's later statements is the
// caller's.
func (s *Store) begin(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	var t pgx.Tx
	err := s.statement(ctx, func() error {
		var err error
		t, err = s.pool.BeginTx(ctx, opts)
		return err
	})
	return t, err
}

// attemptTx is one attempt of inTx, on a connection acquired for it. It
// reports whether the attempt failed unsent: at its first send, before
// anything reached the server (tx.unsent).
func (s *Store) attemptTx(ctx context.Context, body func(t *tx) error) (unsent bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	// A connection left inside a transaction (a failed ROLLBACK) is
	// closed by the pool on release, never reused; so is a dead one.
	defer conn.Release()
	t := &tx{conn: conn}
	err = body(t)
	if err == nil && !t.ended {
		err = t.send(ctx, true, nil)
	}
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		// The row stays as it was, a placeholder disappears.
		_, _ = conn.Exec(ctx, "ROLLBACK")
	}
	return err != nil && t.unsent, err
}

// exec runs the statements queue adds in a transaction of their own:
// BEGIN, they and COMMIT go to the server in one round trip.
func (s *Store) exec(ctx context.Context, queue func(b *pgx.Batch)) error {
	return s.inTx(ctx, func(t *tx) error { return t.send(ctx, true, queue) })
}

// scanRow returns a QueryRow function that scans the row into dest and
// reports in found whether there was one; no row is not an error.
func scanRow(found *bool, dest ...any) func(pgx.Row) error {
	return func(row pgx.Row) error {
		err := row.Scan(dest...)
		*found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	}
}
