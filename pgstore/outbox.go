package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tppkit/psd2/events"
)

// Outbox is the store's table of lifecycle events (package events): an
// [events.Sink] for an events.Emitter, read by consumers on any replica,
// each event delivered once. Get it with [Store.Outbox]; the table comes
// with [Store.Migrate].
//
// Delivery: [Outbox.Consume] takes up to n pending events in the order
// they were published, locking them with SELECT ... FOR UPDATE SKIP
// LOCKED, so that consumers running side by side take disjoint batches
// and never wait for each other; it hands each to the handler and marks
// it delivered in the same transaction. A consumer that dies mid-batch
// (killed, its connection lost) commits nothing: its events return to
// pending and another consumer gets them. The handler's writes through
// the transaction it is given commit with the delivery, so they happen
// exactly once; an effect outside the database (an e-mail) happens at
// least once, and should use [events.Envelope.ID] as its idempotency key.
type Outbox struct {
	s                                     *Store
	insert, take, mark, prune, countQuery string
}

// Outbox returns the store's outbox.
func (s *Store) Outbox() *Outbox {
	t := pgx.Identifier{s.schema, "outbox"}.Sanitize()
	return &Outbox{s: s,
		insert: `INSERT INTO ` + t + ` (id, kind, at, data) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
		take: `SELECT seq, id, kind, at, data FROM ` + t + ` WHERE delivered_at IS NULL
			ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
		mark:       `UPDATE ` + t + ` SET delivered_at = now() WHERE seq = ANY($1)`,
		prune:      `DELETE FROM ` + t + ` WHERE delivered_at < now() - make_interval(secs => $1::bigint / 1e6)`,
		countQuery: `SELECT count(*) FILTER (WHERE delivered_at IS NULL), count(*) FROM ` + t,
	}
}

var _ events.Sink = (*Outbox)(nil)

// Publish adds e to the outbox; an event whose ID is there already
// (pending or delivered and not yet pruned) is dropped.
func (o *Outbox) Publish(ctx context.Context, e events.Envelope) error {
	if e.ID == "" || e.Kind == "" {
		return errors.New("pgstore: outbox: an envelope needs an ID and a Kind")
	}
	return wrapNil(ctx, "outbox publish", o.s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(o.insert, e.ID, string(e.Kind), e.At, []byte(e.Data))
	}))
}

// PublishTx adds e to the outbox within the caller's transaction tx
// (on this store's database), so that the event commits with the change
// it reports.
func (o *Outbox) PublishTx(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
	if e.ID == "" || e.Kind == "" {
		return errors.New("pgstore: outbox: an envelope needs an ID and a Kind")
	}
	_, err := tx.Exec(ctx, o.insert, e.ID, string(e.Kind), e.At, []byte(e.Data))
	return wrapNil(ctx, "outbox publish", err)
}

// OutboxHandler handles one event within the consumer's transaction tx.
// An error stops the batch: the events before it are delivered, it and
// the rest stay pending.
type OutboxHandler func(ctx context.Context, tx pgx.Tx, e events.Envelope) error

// Consume delivers up to n pending events to h in one transaction and
// returns how many it delivered (0: none pending, or all locked by other
// consumers).
func (o *Outbox) Consume(ctx context.Context, n int, h OutboxHandler) (int, error) {
	if n <= 0 || h == nil {
		return 0, errors.New("pgstore: outbox: Consume needs n > 0 and a handler")
	}
	tx, err := o.s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, wrap(ctx, "outbox consume", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := tx.Query(ctx, o.take, n)
	if err != nil {
		return 0, wrap(ctx, "outbox consume", err)
	}
	type row struct {
		seq int64
		env events.Envelope
	}
	var batch []row
	for rows.Next() {
		var r row
		var kind string
		var data []byte
		if err := rows.Scan(&r.seq, &r.env.ID, &kind, &r.env.At, &data); err != nil {
			rows.Close()
			return 0, wrap(ctx, "outbox consume", err)
		}
		r.env.Kind, r.env.Data = events.Kind(kind), data
		batch = append(batch, r)
	}
	if err := rows.Err(); err != nil {
		return 0, wrap(ctx, "outbox consume", err)
	}
	done := make([]int64, 0, len(batch))
	var herr error
	for _, r := range batch {
		if herr = h(ctx, tx, r.env); herr != nil {
			herr = fmt.Errorf("pgstore: outbox: handling event %s (%s): %w", r.env.ID, r.env.Kind, herr)
			break
		}
		done = append(done, r.seq)
	}
	if len(done) > 0 {
		if _, err := tx.Exec(ctx, o.mark, done); err != nil {
			return 0, wrap(ctx, "outbox consume", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return 0, wrap(ctx, "outbox consume", err)
		}
	}
	return len(done), herr
}

// Run consumes batches of up to n events until ctx ends, waiting poll
// when none is pending, and returns ctx's error, or the first error of
// h or of the database.
func (o *Outbox) Run(ctx context.Context, n int, poll time.Duration, h OutboxHandler) error {
	if poll <= 0 {
		return errors.New("pgstore: outbox: Run needs a positive poll interval")
	}
	for {
		got, err := o.Consume(ctx, n, h)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if got > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// Pending returns the number of events not yet delivered and of all
// events in the outbox.
func (o *Outbox) Pending(ctx context.Context) (pending, total int64, err error) {
	err = o.s.pool.QueryRow(ctx, o.countQuery).Scan(&pending, &total)
	return pending, total, wrapNil(ctx, "outbox pending", err)
}

// wrapNil is wrap, nil for no error.
func wrapNil(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(ctx, op, err)
}

// Prune deletes the events delivered more than olderThan ago: after
// that, the same event published again is delivered again.
func (o *Outbox) Prune(ctx context.Context, olderThan time.Duration) (int64, error) {
	tag, err := o.s.pool.Exec(ctx, o.prune, micros(olderThan))
	if err != nil {
		return 0, wrap(ctx, "outbox prune", err)
	}
	return tag.RowsAffected(), nil
}
