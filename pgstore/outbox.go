package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/backoff"
)

// Outbox is the store's table of lifecycle events (package events): an
// [events.Sink] for an events.Emitter, read by consumers on any replica,
// each event delivered once. Get it with [Store.Outbox]; the table comes
// with [Store.Migrate].
//
// Delivery: [Outbox.Consume] takes up to n pending events in the order
// they were published, locking them with SELECT ... FOR UPDATE SKIP
// LOCKED, so that consumers running side by side take disjoint batches
// and never wait for each other; it hands each to the handler inside a
// savepoint of its own, and marks the ones handled delivered in the same
// transaction. A consumer that dies mid-batch (killed, its connection
// lost) commits nothing: its events return to pending and another
// consumer gets them. The handler's writes through the transaction it is
// given commit with the delivery, so they happen exactly once; a handler
// that fails has its writes rolled back with its savepoint, so they
// never happen for a failed attempt. An effect outside the database (an
// e-mail) happens at least once, and should use [events.Envelope.ID] as
// its idempotency key.
//
// Failures: an event whose handler fails stays pending and is taken
// again after a pause that doubles with each failure (10 s, 20 s, ... up
// to 1 h: [DefaultRetryDelay], [DefaultMaxRetryDelay]); the failure of
// its [DefaultMaxAttempts]-th attempt (10, about 85 minutes after the
// first) makes it a dead letter, which no consumer takes any more (see
// [WithOutboxMaxAttempts] and [WithOutboxRetryDelay]). The other events
// go on. [Outbox.DeadLetters] lists the dead letters, [Outbox.Retry]
// gives one a fresh set of attempts, [Outbox.Discard] sets one aside;
// the command psd2 outbox does the same for an operator. An event
// stored out of the outbox's bounds (by an earlier release or by hand:
// see [ErrStoredEventRefused]) is never given to a handler, nor its data
// read: it becomes a dead letter at its first attempt.
//
// Restarts: a statement of the outbox that never reached the server (an
// idle connection of the pool that died in a restart or a failover of
// the database) runs again at once on another connection, as the
// store's transactions do: Consume's BEGIN, each read of Stats,
// DeadLetters, List and Pending, each batch of Prune. Nothing that may
// have reached the server runs again: a consumer's connection lost
// after its BEGIN fails its batch, which is pending again.
//
// Order: the events of one subject ([events.Envelope.Key]: one consent
// reference, one payment, one certificate role) are delivered in the
// order they were published, across every consumer: an event is taken
// only once every earlier event of its key is delivered. So a failing
// event holds the later events of its key while it waits for its next
// attempt, and a dead letter holds them until it is retried or
// discarded: a consumer never sees a payment's ACSC after its failed
// ACTC was skipped, nor a consent's renewal before its failed
// revocation. Events of other keys are never held. Events of different
// keys have no order between them, nor have two events of one key
// published at the same moment by two transactions (concurrent facts):
// either may come first. A batch holds at most one event per key.
// Envelopes without a Key (made by hand, or stored before migration
// 0003) are held by nothing and hold nothing.
type Outbox struct {
	s   *Store
	cfg outboxConfig
	q   outboxQueries
	// afterStats, when set (by a test), runs in List between its two
	// reads.
	afterStats func()
}

// outboxQueries are the outbox's statements for one schema.
type outboxQueries struct {
	insert, take, fail, mark, prune, count, stats string
	dead, retry, retryAll, discard                string
}

// Outbox returns the store's outbox, configured by the store's options
// ([WithOutboxMaxAttempts], [WithOutboxRetryDelay],
// [WithOutboxObserver]).
func (s *Store) Outbox() *Outbox {
	t := pgx.Identifier{s.schema, "outbox"}.Sanitize()
	// pending is the state of an event no consumer has delivered and
	// that is no dead letter.
	const pending = `delivered_at IS NULL AND dead_at IS NULL`
	return &Outbox{s: s, cfg: s.outbox, q: outboxQueries{
		insert: `INSERT INTO ` + t + ` (id, key, kind, at, data) VALUES ($1, NULLIF($2, ''), $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
		// An event is taken when it is pending, its pause after a failure
		// is over, and no earlier event of its key is undelivered (a dead
		// letter included): a batch holds at most one event per key.
		// Each field is read only within its bound, with its length: a
		// row no Publish could write (an earlier release's, a hand-made
		// one) costs no more than one it wrote, and is refused
		// (storedOutOfBounds).
		take: `SELECT o.seq, ` + boundedID("o.id") + `, ` + bounded("o.key", MaxEventIDLen) + `, ` + bounded("o.kind", MaxEventIDLen) + `,
			CASE WHEN isfinite(o.at) THEN o.at END, ` + bounded("o.data", MaxEventDataLen) + `, o.attempts,
			octet_length(o.id), coalesce(octet_length(o.key), 0), octet_length(o.kind), octet_length(o.data) FROM ` + t + ` o
			WHERE o.delivered_at IS NULL AND o.dead_at IS NULL
			  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
			  AND (o.key IS NULL OR NOT EXISTS (SELECT 1 FROM ` + t + ` e
			       WHERE e.key = o.key AND e.seq < o.seq AND e.delivered_at IS NULL))
			ORDER BY o.seq LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
		// attempts stays within its column's integer: a row stored with
		// the largest (by hand, damaged) fails as a dead letter, not as
		// an error of its whole batch.
		fail: `UPDATE ` + t + ` SET attempts = least($2::bigint, 2147483647), failed_at = now(),
			next_attempt_at = now() + make_interval(secs => $3::bigint / 1e6),
			dead_at = CASE WHEN $4::boolean THEN now() END WHERE seq = $1`,
		mark: `UPDATE ` + t + ` SET delivered_at = now() WHERE seq = ANY($1)`,
		// At most cleanupBatch rows a statement, skipping rows another
		// replica's prune holds: Prune repeats it until a batch is short.
		prune: `DELETE FROM ` + t + ` WHERE seq IN (SELECT seq FROM ` + t + `
			WHERE delivered_at < now() - make_interval(secs => $1::bigint / 1e6)
			LIMIT ` + fmt.Sprint(cleanupBatch) + ` FOR UPDATE SKIP LOCKED)`,
		count: `SELECT count(*) FILTER (WHERE ` + pending + `), count(*) FROM ` + t,
		stats: `SELECT count(*) FILTER (WHERE ` + pending + `),
			count(*) FILTER (WHERE ` + pending + ` AND attempts > 0),
			count(*) FILTER (WHERE dead_at IS NOT NULL AND delivered_at IS NULL),
			count(*) FILTER (WHERE delivered_at IS NOT NULL),
			min(at) FILTER (WHERE ` + pending + ` AND isfinite(at)) FROM ` + t,
		dead: `SELECT ` + boundedID("d.id") + `, coalesce(` + bounded("d.kind", MaxEventIDLen) + `, ''),
			CASE WHEN isfinite(d.at) THEN d.at END, d.attempts,
			CASE WHEN isfinite(d.failed_at) THEN d.failed_at END, CASE WHEN isfinite(d.dead_at) THEN d.dead_at END,
			(SELECT count(*) FROM ` + t + ` h WHERE h.key = d.key AND h.seq > d.seq AND h.delivered_at IS NULL),
			octet_length(d.id), coalesce(octet_length(d.key), 0), octet_length(d.kind), octet_length(d.data)
			FROM ` + t + ` d WHERE d.dead_at IS NOT NULL AND d.delivered_at IS NULL ORDER BY d.seq LIMIT $1`,
		retry: `UPDATE ` + t + ` SET attempts = 0, next_attempt_at = NULL, dead_at = NULL
			WHERE id = $1 AND dead_at IS NOT NULL AND delivered_at IS NULL`,
		retryAll: `UPDATE ` + t + ` SET attempts = 0, next_attempt_at = NULL, dead_at = NULL
			WHERE dead_at IS NOT NULL AND delivered_at IS NULL`,
		discard: `UPDATE ` + t + ` SET delivered_at = now()
			WHERE id = $1 AND dead_at IS NOT NULL AND delivered_at IS NULL`,
	}}
}

var _ events.Sink = (*Outbox)(nil)

// bounded reads column only when it is at most limit bytes, else NULL.
func bounded(column string, limit int) string {
	return fmt.Sprintf(`CASE WHEN octet_length(%[1]s) <= %[2]d THEN %[1]s END`, column, limit)
}

// maxReadIDLen bounds the ID of a row read out of bounds: an ID up to
// it is read whole (so that Retry and Discard can name the row), a
// longer one as its first MaxEventIDLen characters. The ID's unique
// index keeps IDs below some 2.7 kB, unless they compress well.
const maxReadIDLen = 8 << 10

// boundedID reads column, an event's ID, within maxReadIDLen.
func boundedID(column string) string {
	return fmt.Sprintf(`CASE WHEN octet_length(%[1]s) <= %[2]d THEN %[1]s ELSE left(%[1]s, %[3]d) END`, column, maxReadIDLen, MaxEventIDLen)
}

// ErrStoredEventRefused is the error (matched with errors.Is, in a
// [HandlerError]) of an event stored out of the outbox's bounds: its
// data above [MaxEventDataLen], its ID, Key or Kind above
// [MaxEventIDLen], or its time not finite. No Publish writes one; an
// earlier release, a hand-made row or another application may have.
// [Outbox.Consume] never reads its data nor gives it to the handler: it
// makes it a dead letter at once, at its first attempt, whatever
// [WithOutboxMaxAttempts] says ([DeadLetter.Reason] says why). Discard
// it ([Outbox.Discard]) to let the later events of its key go on, and
// publish its fact again within the bounds if it is still needed; a
// Retry makes it a dead letter again at once.
var ErrStoredEventRefused = errors.New("pgstore: outbox: the stored event is out of the outbox's bounds, and no handler is given it")

// storedOutOfBounds says why a stored event of these lengths (bytes;
// key 0 for none) and time is out of the outbox's bounds, "" when it is
// within them.
func storedOutOfBounds(id, key, kind, data int64, finite bool) string {
	switch {
	case data > MaxEventDataLen:
		return fmt.Sprintf("its data has %d bytes, above MaxEventDataLen (%d)", data, MaxEventDataLen)
	case id > MaxEventIDLen:
		return fmt.Sprintf("its ID has %d bytes, above MaxEventIDLen (%d)", id, MaxEventIDLen)
	case key > MaxEventIDLen:
		return fmt.Sprintf("its Key has %d bytes, above MaxEventIDLen (%d)", key, MaxEventIDLen)
	case kind > MaxEventIDLen:
		return fmt.Sprintf("its Kind has %d bytes, above MaxEventIDLen (%d)", kind, MaxEventIDLen)
	case !finite:
		return "its time (Envelope.At) is not finite"
	}
	return ""
}

// Publish adds e to the outbox; an event whose ID is there already
// (pending, dead, or delivered and not yet pruned) is dropped. An
// envelope without an ID or a Kind, or above [MaxEventIDLen] or
// [MaxEventDataLen], is refused.
func (o *Outbox) Publish(ctx context.Context, e events.Envelope) error {
	if err := checkEnvelope(e); err != nil {
		return err
	}
	return wrapNil(ctx, "outbox publish", o.s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(o.q.insert, e.ID, e.Key, string(e.Kind), e.At, []byte(e.Data))
	}))
}

// PublishTx adds e to the outbox within the caller's transaction tx
// (on this store's database), so that the event commits with the change
// it reports.
func (o *Outbox) PublishTx(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
	if err := checkEnvelope(e); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, o.q.insert, e.ID, e.Key, string(e.Kind), e.At, []byte(e.Data))
	return wrapNil(ctx, "outbox publish", err)
}

// checkEnvelope refuses an envelope the outbox cannot keep: without an
// ID or a Kind, or above the outbox's bounds (MaxEventIDLen,
// MaxEventDataLen). Its error quotes none of the envelope's fields.
func checkEnvelope(e events.Envelope) error {
	switch {
	case e.ID == "" || e.Kind == "":
		return errors.New("pgstore: outbox: an envelope needs an ID and a Kind")
	case len(e.ID) > MaxEventIDLen || len(e.Key) > MaxEventIDLen || len(e.Kind) > MaxEventIDLen:
		return fmt.Errorf("pgstore: outbox: an envelope's ID, Key and Kind are at most %d bytes each", MaxEventIDLen)
	case len(e.Data) > MaxEventDataLen:
		return fmt.Errorf("pgstore: outbox: an envelope's Data of %d bytes is above the outbox's %d", len(e.Data), MaxEventDataLen)
	}
	return nil
}

// OutboxHandler handles one event within the consumer's transaction tx.
// It runs inside a savepoint of its own: when it returns an error, its
// writes through tx are rolled back and the event stays pending (see
// [Outbox]); when it returns nil, they commit with the delivery. The
// handler must not end the transaction: tx's Commit and Rollback return
// an error (tx.Begin makes a savepoint of the handler's own, nested in
// the event's, which it may commit or roll back). A statement of the
// handler that failed while the handler returned nil fails the attempt
// too: PostgreSQL has aborted the savepoint, so the handler's writes
// could not commit. A handler that panics is not recovered: the
// consumer's transaction ends unfinished, as in a crash, so nothing of
// the batch commits and no attempt is counted.
type OutboxHandler func(ctx context.Context, tx pgx.Tx, e events.Envelope) error

// HandlerError is the failure of one event's handler in [Outbox.Consume]
// (found with errors.As): the handler's writes were rolled back, the
// attempt was counted, and the other events of the batch went on.
type HandlerError struct {
	// ID and Kind are the event's.
	ID   string
	Kind events.Kind
	// Attempt is the attempt that failed, 1 for the first.
	Attempt int
	// Dead is set when it was the last attempt allowed: the event is a
	// dead letter now ([Outbox.DeadLetters]).
	Dead bool
	// Err is the handler's error, or, for an event stored out of the
	// outbox's bounds that no handler was given, one matching
	// [ErrStoredEventRefused].
	Err error
}

// Error implements error.
func (e *HandlerError) Error() string {
	state := "will be retried"
	if e.Dead {
		state = "now a dead letter"
	}
	return fmt.Sprintf("pgstore: outbox: event %s (%s), attempt %d, %s: %v", e.ID, e.Kind, e.Attempt, state, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }

// errHandlerEnds is what a handler gets when it tries to end the
// consumer's transaction.
var errHandlerEnds = errors.New("pgstore: outbox: a handler must not commit or roll back the consumer's transaction")

// handlerTx is the consumer's transaction as a handler gets it, with
// Commit and Rollback refused: the consumer ends it.
type handlerTx struct{ pgx.Tx }

// Commit refuses to end the consumer's transaction.
func (handlerTx) Commit(context.Context) error { return errHandlerEnds }

// Rollback refuses to end the consumer's transaction.
func (handlerTx) Rollback(context.Context) error { return errHandlerEnds }

// errStatementFailed is the error of an attempt whose handler returned
// nil although a statement of it failed.
var errStatementFailed = errors.New("a statement of the handler failed, and the handler returned no error")

// The savepoint each handler runs in. After a handler succeeds, the next
// event releases it (keeping the handler's writes) and sets it again, in
// one round trip; after a handler fails, rolling back to it leaves it
// set and empty, ready for the next event. The transaction's COMMIT
// keeps the last one's writes. A handler's own savepoints (tx.Begin) nest
// inside it.
const (
	savepointSet     = "SAVEPOINT pgstore_outbox_event"
	savepointNext    = "RELEASE SAVEPOINT pgstore_outbox_event; SAVEPOINT pgstore_outbox_event"
	savepointUndo    = "ROLLBACK TO SAVEPOINT pgstore_outbox_event"
	savepointNone    = 0 // not set yet
	savepointEmpty   = 1 // set, nothing done in it
	savepointWritten = 2 // set, holding a delivered event's writes
)

// outboxRow is an event as Consume took it.
type outboxRow struct {
	seq      int64
	env      events.Envelope
	attempts int
	// refused says why the row is out of the outbox's bounds
	// (storedOutOfBounds); "" when it is within them.
	refused string
}

// Consume delivers up to n pending events (at most [MaxConsumeBatch]) to
// h in one transaction and returns how many it delivered (0: none pending, or all locked by other
// consumers or held behind an earlier event of their key). Each event's
// handler runs in a savepoint: a failing one is rolled back, counted
// (it becomes a dead letter on its last attempt) and reported, and the
// batch goes on. The error is then the [HandlerError] of every event that
// failed (errors.Join), and the events delivered are committed all the
// same. Any other error (the database, ctx ending) commits nothing: the
// batch's events are pending again, and no attempt is counted.
func (o *Outbox) Consume(ctx context.Context, n int, h OutboxHandler) (int, error) {
	delivered, failed, err := o.consume(ctx, n, h)
	if err != nil {
		return 0, err
	}
	errs := make([]error, len(failed))
	for i, f := range failed {
		errs[i] = f
	}
	return delivered, errors.Join(errs...)
}

// consume is Consume, with the handlers' failures apart from the error
// that committed nothing.
func (o *Outbox) consume(ctx context.Context, n int, h OutboxHandler) (int, []*HandlerError, error) {
	if n <= 0 || h == nil {
		return 0, nil, errors.New("pgstore: outbox: Consume needs n > 0 and a handler")
	}
	n = min(n, MaxConsumeBatch)
	// A BEGIN on a dead connection (after a restart) is sent again on
	// another (Store.begin); nothing after it is: the claim below may
	// have reached the server.
	tx, err := o.s.begin(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, nil, wrap(ctx, "outbox consume", err)
	}
	defer func() {
		rctx, cancel := o.cfg.rollbackContext(ctx)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	batch, err := o.take(ctx, tx, n)
	if err != nil || len(batch) == 0 {
		return 0, nil, err
	}
	done := make([]int64, 0, len(batch))
	seen := make([]OutboxAttempt, 0, len(batch))
	var failed []*HandlerError
	end := &pgx.Batch{}
	sp := savepointNone
	for _, r := range batch {
		if r.refused != "" {
			// Not the handler's to see: a dead letter at once.
			herr := fmt.Errorf("%w: %s", ErrStoredEventRefused, r.refused)
			a := OutboxAttempt{ID: r.env.ID, Kind: r.env.Kind, Attempt: r.attempts + 1, Outcome: OutboxDead, Err: herr}
			end.Queue(o.q.fail, r.seq, a.Attempt, micros(o.cfg.retryDelay(a.Attempt)), true)
			seen = append(seen, a)
			failed = append(failed, &HandlerError{ID: a.ID, Kind: a.Kind, Attempt: a.Attempt, Dead: true, Err: herr})
			continue
		}
		switch sp {
		case savepointNone:
			_, err = tx.Exec(ctx, savepointSet)
		case savepointWritten:
			_, err = tx.Exec(ctx, savepointNext)
		}
		if err != nil {
			return 0, nil, wrap(ctx, "outbox consume", err)
		}
		herr := h(ctx, handlerTx{tx}, r.env)
		if herr == nil && tx.Conn().PgConn().TxStatus() == 'E' {
			herr = errStatementFailed
		}
		a := OutboxAttempt{ID: r.env.ID, Kind: r.env.Kind, Attempt: r.attempts + 1, Outcome: OutboxDelivered}
		if herr == nil {
			sp = savepointWritten
			done = append(done, r.seq)
			seen = append(seen, a)
			continue
		}
		if ctx.Err() != nil {
			// The consumer is stopping: not the event's fault, and
			// nothing commits anyway.
			return 0, nil, wrap(ctx, "outbox consume", herr)
		}
		if _, err := tx.Exec(ctx, savepointUndo); err != nil {
			return 0, nil, wrap(ctx, "outbox consume", err)
		}
		sp = savepointEmpty
		a.Err, a.Outcome = herr, OutboxRetry
		if a.Attempt >= o.cfg.maxAttempts {
			a.Outcome = OutboxDead
		}
		end.Queue(o.q.fail, r.seq, a.Attempt, micros(o.cfg.retryDelay(a.Attempt)), a.Outcome == OutboxDead)
		seen = append(seen, a)
		failed = append(failed, &HandlerError{ID: a.ID, Kind: a.Kind, Attempt: a.Attempt, Dead: a.Outcome == OutboxDead, Err: herr})
	}
	if len(done) > 0 {
		end.Queue(o.q.mark, done)
	}
	if err := tx.SendBatch(ctx, end).Close(); err != nil {
		return 0, nil, wrap(ctx, "outbox consume", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, nil, wrap(ctx, "outbox consume", err)
	}
	if o.cfg.observe != nil {
		for _, a := range seen {
			o.cfg.observe(ctx, a)
		}
	}
	return len(done), failed, nil
}

// take locks and reads up to n events to deliver.
func (o *Outbox) take(ctx context.Context, tx pgx.Tx, n int) ([]outboxRow, error) {
	rows, err := tx.Query(ctx, o.q.take, n)
	if err != nil {
		return nil, wrap(ctx, "outbox consume", err)
	}
	defer rows.Close()
	var batch []outboxRow
	for rows.Next() {
		var r outboxRow
		var key, kind *string
		var at *time.Time
		var data []byte
		var idLen, keyLen, kindLen, dataLen int64
		if err := rows.Scan(&r.seq, &r.env.ID, &key, &kind, &at, &data, &r.attempts,
			&idLen, &keyLen, &kindLen, &dataLen); err != nil {
			return nil, wrap(ctx, "outbox consume", err)
		}
		if key != nil {
			r.env.Key = *key
		}
		if kind != nil {
			r.env.Kind = events.Kind(*kind)
		}
		if at != nil {
			r.env.At = *at
		}
		r.env.Data = data
		r.refused = storedOutOfBounds(idLen, keyLen, kindLen, dataLen, at != nil)
		batch = append(batch, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(ctx, "outbox consume", err)
	}
	return batch, nil
}

// Run consumes batches of up to n events (at most [MaxConsumeBatch])
// until ctx ends, waiting poll when a batch delivered nothing, and
// returns ctx's error, or the first error of the database. A handler's failure does not stop it: it is
// counted, and reported to the observer of [WithOutboxObserver].
func (o *Outbox) Run(ctx context.Context, n int, poll time.Duration, h OutboxHandler) error {
	if poll <= 0 {
		return errors.New("pgstore: outbox: Run needs a positive poll interval")
	}
	for {
		got, _, err := o.consume(ctx, n, h)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if got > 0 {
			continue
		}
		if !backoff.Sleep(ctx, poll) {
			return ctx.Err()
		}
	}
}

// Pending returns the number of pending events (neither delivered nor
// dead letters; [OutboxStats.Pending]) and of all events in the outbox.
func (o *Outbox) Pending(ctx context.Context) (pending, total int64, err error) {
	err = o.s.statement(ctx, func() error {
		return o.s.pool.QueryRow(ctx, o.q.count).Scan(&pending, &total)
	})
	return pending, total, wrapNil(ctx, "outbox pending", err)
}

// wrapNil is wrap, nil for no error.
func wrapNil(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(ctx, op, err)
}

// Prune deletes the events delivered (or discarded) more than olderThan
// ago: after that, the same event published again is delivered again.
// Dead letters stay until they are retried and delivered, or discarded.
// Like [Store.Cleanup] it deletes in batches of 1000, each its own
// statement, until none is left, and returns how many it deleted (with
// an error, those deleted before it): a statement_timeout or the end of
// ctx stops one batch, and what the earlier ones deleted stays deleted.
// Replicas may prune at the same time: each batch skips the rows another
// one is deleting.
func (o *Outbox) Prune(ctx context.Context, olderThan time.Duration) (int64, error) {
	var total int64
	for {
		var tag pgconn.CommandTag
		err := o.s.statement(ctx, func() error {
			var err error
			tag, err = o.s.pool.Exec(ctx, o.q.prune, micros(olderThan))
			return err
		})
		if err != nil {
			return total, wrap(ctx, "outbox prune", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < cleanupBatch {
			return total, nil
		}
	}
}
