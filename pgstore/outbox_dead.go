package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tppkit/psd2/events"
)

// OutboxStats counts the outbox's events by state, over every replica:
// what an operator watches and alerts on (a dead letter, a growing
// backlog). [Outbox.Stats] reads them.
type OutboxStats struct {
	// Pending is the number of events neither delivered nor dead: waiting
	// for a consumer, for the pause after a failure, or behind an
	// undelivered event of their key.
	Pending int64 `json:"pending"`
	// Retrying is the number of pending events that failed at least once.
	Retrying int64 `json:"retrying"`
	// Dead is the number of dead letters ([Outbox.DeadLetters]).
	Dead int64 `json:"dead"`
	// Delivered is the number of delivered (or discarded) events kept
	// until [Outbox.Prune].
	Delivered int64 `json:"delivered"`
	// OldestPending is the time (events.Envelope.At) of the oldest
	// pending event; zero when none is pending. Its age is the outbox's
	// lag.
	OldestPending time.Time `json:"oldestPending,omitzero"`
}

// Stats counts the outbox's events by state in one statement. It suits
// an OpenTelemetry observable gauge's callback, read at each collection
// (the pgstore module does not import OpenTelemetry):
//
//	meter.Int64ObservableGauge("psd2.outbox.dead_letters",
//		metric.WithInt64Callback(func(ctx context.Context, o metric.Int64Observer) error {
//			s, err := ob.Stats(ctx)
//			if err != nil {
//				return err
//			}
//			o.Observe(s.Dead)
//			return nil
//		}))
//
// Stats and [Outbox.DeadLetters] called one after the other read the
// outbox at two moments, and may disagree; [Outbox.List] reads both at
// one.
func (o *Outbox) Stats(ctx context.Context) (OutboxStats, error) {
	var s OutboxStats
	err := o.s.statement(ctx, func() error {
		var err error
		s, err = o.stats(ctx, o.s.pool)
		return err
	})
	return s, err
}

// querier runs a statement on a pool or in a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// stats is Stats through q.
func (o *Outbox) stats(ctx context.Context, q querier) (OutboxStats, error) {
	var s OutboxStats
	var oldest *time.Time
	err := q.QueryRow(ctx, o.q.stats).Scan(&s.Pending, &s.Retrying, &s.Dead, &s.Delivered, &oldest)
	if err != nil {
		return OutboxStats{}, wrap(ctx, "outbox stats", err)
	}
	if oldest != nil {
		s.OldestPending = oldest.UTC()
	}
	return s, nil
}

// MaxDeadLetters bounds the dead letters [Outbox.DeadLetters] returns at
// once.
const MaxDeadLetters = 1000

// DeadLetter is an outbox event whose every attempt failed: no consumer
// takes it until [Outbox.Retry]. It carries no event data: the data is
// read by the handler, not by an operator.
type DeadLetter struct {
	// ID and Kind are the event's.
	ID   string      `json:"id"`
	Kind events.Kind `json:"kind"`
	// At is when the event was made (events.Envelope.At).
	At time.Time `json:"at"`
	// Attempts is the number of attempts that failed.
	Attempts int `json:"attempts"`
	// FailedAt is when the last of them failed, which made it a dead
	// letter.
	FailedAt time.Time `json:"failedAt"`
	// Holds is the number of later events of its key it holds back (see
	// [Outbox]): they are delivered once it is, or discarded.
	Holds int64 `json:"holds"`
	// Reason is set when the event is stored out of the outbox's bounds
	// ([ErrStoredEventRefused]): it says which bound, and the event
	// became a dead letter without a handler. Empty for a letter whose
	// handler failed (the handler's error is never kept).
	Reason string `json:"reason,omitempty"`
}

// DeadLetters returns up to limit dead letters (1 to [MaxDeadLetters]),
// oldest first; [OutboxStats.Dead] says how many there are in all.
func (o *Outbox) DeadLetters(ctx context.Context, limit int) ([]DeadLetter, error) {
	if err := checkDeadLimit("DeadLetters", limit); err != nil {
		return nil, err
	}
	var dead []DeadLetter
	err := o.s.statement(ctx, func() error {
		var err error
		dead, err = o.deadLetters(ctx, o.s.pool, limit)
		return err
	})
	return dead, err
}

// checkDeadLimit refuses a limit of dead letters out of 1 to
// MaxDeadLetters.
func checkDeadLimit(method string, limit int) error {
	if limit < 1 || limit > MaxDeadLetters {
		return fmt.Errorf("pgstore: outbox: %s limit %d is not between 1 and %d", method, limit, MaxDeadLetters)
	}
	return nil
}

// List returns the outbox's counts ([Outbox.Stats]) and up to limit of
// its dead letters (1 to [MaxDeadLetters]), oldest first
// ([Outbox.DeadLetters]), read from one snapshot of the outbox: a
// read-only REPEATABLE READ transaction, so that the two agree whatever
// consumers, [Outbox.Retry] and [Outbox.Discard] do meanwhile (Dead
// counts the letters listed, each letter's Holds counts events Pending
// counts). Stats and DeadLetters called one after the other read two
// moments: a letter retried between them is counted dead and not
// listed, or listed and not counted. List is what an operator's listing
// reads (psd2 outbox list).
func (o *Outbox) List(ctx context.Context, limit int) (OutboxStats, []DeadLetter, error) {
	if err := checkDeadLimit("List", limit); err != nil {
		return OutboxStats{}, nil, err
	}
	var stats OutboxStats
	var dead []DeadLetter
	// A read-only transaction under REPEATABLE READ takes its snapshot
	// at its first statement, waits for no lock and never fails to
	// serialize on a primary; on a hot standby a conflict with recovery
	// (40001) runs it again (retry).
	err := retry(ctx, func() error {
		tx, err := o.s.begin(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return wrap(ctx, "outbox list", err)
		}
		// It wrote nothing; a rollback that fails (ctx ended) closes the
		// connection rather than return it to the pool inside a transaction.
		defer func() { _ = tx.Rollback(ctx) }()
		if stats, err = o.stats(ctx, tx); err != nil {
			return err
		}
		if o.afterStats != nil {
			o.afterStats()
		}
		dead, err = o.deadLetters(ctx, tx, limit)
		return err
	})
	if err != nil {
		return OutboxStats{}, nil, err
	}
	return stats, dead, nil
}

// deadLetters is DeadLetters through q.
func (o *Outbox) deadLetters(ctx context.Context, q querier, limit int) ([]DeadLetter, error) {
	rows, err := q.Query(ctx, o.q.dead, limit)
	if err != nil {
		return nil, wrap(ctx, "outbox dead letters", err)
	}
	defer rows.Close()
	out := []DeadLetter{}
	for rows.Next() {
		var d DeadLetter
		var kind string
		var at, failed, dead *time.Time
		var idLen, keyLen, kindLen, dataLen int64
		if err := rows.Scan(&d.ID, &kind, &at, &d.Attempts, &failed, &dead, &d.Holds,
			&idLen, &keyLen, &kindLen, &dataLen); err != nil {
			return nil, wrap(ctx, "outbox dead letters", err)
		}
		d.Kind = events.Kind(kind)
		if at != nil {
			d.At = at.UTC()
		}
		d.Reason = storedOutOfBounds(idLen, keyLen, kindLen, dataLen, at != nil)
		switch {
		case failed != nil:
			d.FailedAt = failed.UTC()
		case dead != nil:
			d.FailedAt = dead.UTC()
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(ctx, "outbox dead letters", err)
	}
	return out, nil
}

// ErrNotDeadLetter is the error of [Outbox.Retry] and [Outbox.Discard]
// for an ID that names no dead letter: no such event, or one that is
// pending or delivered.
var ErrNotDeadLetter = errors.New("pgstore: outbox: no dead letter has this ID")

// Retry makes the dead letter id pending again, with a fresh set of
// attempts and no pause: the next consumer takes it, and then the events
// of its key it held. Retry it once the handler can take it (the bug is
// fixed, the mailer is back). The event keeps its place: it is still
// delivered before the later events of its key.
func (o *Outbox) Retry(ctx context.Context, id string) error {
	return o.oneDead(ctx, "outbox retry", o.q.retry, id)
}

// RetryAll makes every dead letter pending again, as [Outbox.Retry]
// does, and returns how many there were.
func (o *Outbox) RetryAll(ctx context.Context) (int64, error) {
	var n int64
	err := o.s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(o.q.retryAll).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
	})
	if err != nil {
		return 0, wrap(ctx, "outbox retry", err)
	}
	return n, nil
}

// Discard sets the dead letter id aside for good: it is marked delivered
// without a handler, so that the events of its key it held go on, and
// is pruned with the delivered events ([Outbox.Prune]). Discard an event
// no handler will ever take (of a kind the TPP does not handle); retry
// any other.
func (o *Outbox) Discard(ctx context.Context, id string) error {
	return o.oneDead(ctx, "outbox discard", o.q.discard, id)
}

// oneDead runs query, which changes the dead letter $1, and reports
// ErrNotDeadLetter when it changed none.
func (o *Outbox) oneDead(ctx context.Context, op, query, id string) error {
	if id == "" {
		return ErrNotDeadLetter
	}
	var n int64
	err := o.s.exec(ctx, func(b *pgx.Batch) {
		b.Queue(query, id).Exec(func(tag pgconn.CommandTag) error {
			n = tag.RowsAffected()
			return nil
		})
	})
	if err != nil {
		return wrap(ctx, op, err)
	}
	if n == 0 {
		return ErrNotDeadLetter
	}
	return nil
}
