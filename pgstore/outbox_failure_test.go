package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// newOutboxStore returns a migrated Store in schema with the outbox
// options opts, on a pool of its own.
func newOutboxStore(tb testing.TB, schema string, opts ...pgstore.Option) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.New(pgtest.Pool(tb, 4), append([]pgstore.Option{pgstore.WithSchema(schema)}, opts...)...)
	require.NoError(tb, err)
	require.NoError(tb, st.Migrate(context.Background()))
	tb.Cleanup(st.Close)
	return st
}

// receivedTable creates the table handlers record deliveries in, and
// returns its quoted name.
func receivedTable(t *testing.T, schema string) string {
	t.Helper()
	tbl := pgx.Identifier{schema, "received"}.Sanitize()
	_, err := pgtest.Pool(t, 1).Exec(t.Context(), `CREATE TABLE `+tbl+` (n bigserial, id text NOT NULL, key text NOT NULL)`)
	require.NoError(t, err)
	return tbl
}

// statusEvent is the i-th status change of payment ref: events of one
// payment share a Key, each has its own ID.
func statusEvent(t testing.TB, ref string, i int) events.Envelope {
	t.Helper()
	env, err := events.Wrap(events.PaymentStatusChanged{Payment: ref, From: fmt.Sprint("S", i), To: fmt.Sprint("S", i+1)}, time.Now())
	require.NoError(t, err)
	return env
}

// drain consumes batches of n until one delivers nothing and fails
// nothing, at most 1000 times, and returns what was delivered and the
// handler failures.
func drain(t *testing.T, ob *pgstore.Outbox, n int, h pgstore.OutboxHandler) (delivered int, failures []*pgstore.HandlerError) {
	t.Helper()
	for range 1000 {
		got, err := ob.Consume(t.Context(), n, h)
		delivered += got
		var failed []*pgstore.HandlerError
		if err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var he *pgstore.HandlerError
				require.ErrorAs(t, e, &he, "only handler errors")
				failed = append(failed, he)
			}
		}
		failures = append(failures, failed...)
		if got == 0 && len(failed) == 0 {
			return delivered, failures
		}
	}
	t.Fatal("the outbox did not settle in 1000 batches")
	return
}

// TestOutboxFailedHandlerLeavesNoWrites makes a handler that writes
// through the consumer's transaction and then fails, on the first
// attempt of every other event: no write of a failed attempt commits,
// so each event is written exactly once.
//
// Before savepoints, a failure's write committed with the batch, and the
// event was handled again: 20 duplicate writes out of 20 failures.
func TestOutboxFailedHandlerLeavesNoWrites(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0))
	ctx := t.Context()
	ob := st.Outbox()
	tbl := receivedTable(t, schema)
	const total = 40
	odd := map[string]bool{}
	for i := range total {
		e := outboxEvent(t, i)
		odd[e.ID] = i%2 == 1
		require.NoError(t, ob.Publish(ctx, e))
	}
	failedOnce := map[string]bool{}
	delivered, failures := drain(t, ob, 10, func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
		if _, err := tx.Exec(ctx, `INSERT INTO `+tbl+` (id, key) VALUES ($1, $2)`, e.ID, e.Key); err != nil {
			return err
		}
		if odd[e.ID] && !failedOnce[e.ID] {
			failedOnce[e.ID] = true
			return errors.New("refused after writing")
		}
		return nil
	})
	var rows, distinct int
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM `+tbl).Scan(&rows, &distinct))
	t.Logf("failing handlers: %d events, %d failed attempts, %d delivered, %d writes committed, %d duplicate writes",
		total, len(failures), delivered, rows, rows-distinct)
	assert.Len(t, failures, total/2)
	assert.Equal(t, total, delivered)
	assert.Equal(t, total, distinct, "every event written")
	assert.Zero(t, rows-distinct, "duplicate writes")
}

// TestOutboxHandlerMayNotEndTheTransaction checks the two ways a handler
// could break its savepoint: ending the consumer's transaction, and
// swallowing the error of a failed statement.
func TestOutboxHandlerMayNotEndTheTransaction(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(time.Hour, time.Hour))
	ctx := t.Context()
	ob := st.Outbox()
	tbl := receivedTable(t, schema)
	for i := range 3 {
		require.NoError(t, ob.Publish(ctx, outboxEvent(t, i)))
	}
	var commitErr error
	n, err := ob.Consume(ctx, 10, func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
		if _, err := tx.Exec(ctx, `INSERT INTO `+tbl+` (id, key) VALUES ($1, $2)`, e.ID, e.Key); err != nil {
			return err
		}
		switch e.ID {
		case outboxEvent(t, 0).ID:
			commitErr = tx.Commit(ctx)
			return commitErr
		case outboxEvent(t, 1).ID:
			_, _ = tx.Exec(ctx, `SELECT 1/0`) // fails, and the handler says nothing
			return nil
		}
		// A savepoint of the handler's own is allowed.
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := sp.Exec(ctx, `INSERT INTO `+tbl+` (id, key) VALUES ('inner', '')`); err != nil {
			return err
		}
		return sp.Rollback(ctx)
	})
	require.Error(t, err)
	require.ErrorContains(t, commitErr, "must not commit")
	assert.ErrorContains(t, err, "a statement of the handler failed")
	assert.Equal(t, 1, n)
	var ids []string
	rows, err := pgtest.Pool(t, 1).Query(ctx, `SELECT id FROM `+tbl)
	require.NoError(t, err)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	assert.Equal(t, []string{outboxEvent(t, 2).ID}, ids, "only the delivered event's write, without its rolled-back inner savepoint")
}

// TestOutboxPoisonEvent publishes 200 events, the third of which the
// handler always refuses: it becomes a dead letter after its attempts,
// and the 197 behind it (and the 2 before) are delivered. Retried once
// the handler takes it, it is delivered too.
//
// Before dead letters, the refused event stopped every batch: 2
// delivered, 198 pending for ever.
func TestOutboxPoisonEvent(t *testing.T) {
	schema := pgtest.Schema(t)
	const attempts = 3
	var seen []pgstore.OutboxAttempt
	var mu sync.Mutex
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0), pgstore.WithOutboxMaxAttempts(attempts),
		pgstore.WithOutboxObserver(func(_ context.Context, a pgstore.OutboxAttempt) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, a)
		}))
	ctx := t.Context()
	ob := st.Outbox()
	const total = 200
	for i := range total {
		require.NoError(t, ob.Publish(ctx, outboxEvent(t, i)))
	}
	poison := outboxEvent(t, 2).ID
	fixed := false
	h := func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		if e.ID == poison && !fixed {
			return errors.New("refused")
		}
		return nil
	}
	delivered, failures := drain(t, ob, 10, h)
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	t.Logf("poison event: %d events, %d delivered, %d failed attempts, stats %+v", total, delivered, len(failures), stats)
	assert.Equal(t, total-1, delivered, "every other event delivered")
	require.Len(t, failures, attempts)
	for i, f := range failures {
		assert.Equal(t, poison, f.ID)
		assert.Equal(t, i+1, f.Attempt)
		assert.Equal(t, i == attempts-1, f.Dead)
	}
	assert.Equal(t, pgstore.OutboxStats{Dead: 1, Delivered: total - 1}, stats)

	dead, err := ob.DeadLetters(ctx, 10)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Equal(t, poison, dead[0].ID)
	assert.Equal(t, events.KindPaymentStatusChanged, dead[0].Kind)
	assert.Equal(t, attempts, dead[0].Attempts)
	assert.Zero(t, dead[0].Holds, "no later event of its payment")
	assert.False(t, dead[0].FailedAt.IsZero())

	// The observer saw every attempt that committed.
	mu.Lock()
	outcomes := map[pgstore.OutboxOutcome]int{}
	for _, a := range seen {
		outcomes[a.Outcome]++
	}
	mu.Unlock()
	assert.Equal(t, map[pgstore.OutboxOutcome]int{pgstore.OutboxDelivered: total - 1, pgstore.OutboxRetry: attempts - 1, pgstore.OutboxDead: 1}, outcomes)

	// Nothing takes a dead letter until it is retried.
	n, err := ob.Consume(ctx, 10, h)
	require.NoError(t, err)
	assert.Zero(t, n)
	fixed = true
	require.NoError(t, ob.Retry(ctx, poison))
	require.ErrorIs(t, ob.Retry(ctx, poison), pgstore.ErrNotDeadLetter, "pending now")
	n, err = ob.Consume(ctx, 10, h)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	stats, err = ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.OutboxStats{Delivered: total}, stats)
	require.ErrorIs(t, ob.Retry(ctx, poison), pgstore.ErrNotDeadLetter, "delivered")
	require.ErrorIs(t, ob.Retry(ctx, "no-such-event"), pgstore.ErrNotDeadLetter)
}

// TestOutboxDeadLetterHoldsItsKey makes a payment's first status change
// a dead letter: the payment's next change waits behind it, another
// payment's does not; retried, both arrive in their order. A discarded
// dead letter lets the next one go.
func TestOutboxDeadLetterHoldsItsKey(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0), pgstore.WithOutboxMaxAttempts(2))
	ctx := t.Context()
	ob := st.Outbox()
	first, other, second := statusEvent(t, "pay-1", 0), statusEvent(t, "pay-2", 0), statusEvent(t, "pay-1", 1)
	third := statusEvent(t, "pay-1", 2)
	for _, e := range []events.Envelope{first, other, second} {
		require.NoError(t, ob.Publish(ctx, e))
	}
	refuse := map[string]bool{first.ID: true}
	var got []string
	h := func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		if refuse[e.ID] {
			return errors.New("refused")
		}
		got = append(got, e.ID)
		return nil
	}
	_, failures := drain(t, ob, 10, h)
	assert.Len(t, failures, 2)
	assert.Equal(t, []string{other.ID}, got, "the other payment's event only")
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, stats.Pending, "the second change, held")
	assert.EqualValues(t, 1, stats.Dead)
	assert.False(t, stats.OldestPending.IsZero())
	dead, err := ob.DeadLetters(ctx, 10)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Equal(t, first.ID, dead[0].ID)
	assert.EqualValues(t, 1, dead[0].Holds)

	delete(refuse, first.ID)
	n, err := ob.RetryAll(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	drain(t, ob, 10, h)
	assert.Equal(t, []string{other.ID, first.ID, second.ID}, got, "the payment's changes in their order")

	// A dead letter discarded: the next event of its key goes on, and
	// the discarded one never reaches the handler.
	require.NoError(t, ob.Publish(ctx, third))
	fourth := statusEvent(t, "pay-1", 3)
	require.NoError(t, ob.Publish(ctx, fourth))
	refuse[third.ID] = true
	drain(t, ob, 10, h)
	require.ErrorIs(t, ob.Discard(ctx, fourth.ID), pgstore.ErrNotDeadLetter, "pending, held")
	require.NoError(t, ob.Discard(ctx, third.ID))
	require.ErrorIs(t, ob.Discard(ctx, third.ID), pgstore.ErrNotDeadLetter)
	drain(t, ob, 10, h)
	assert.Equal(t, []string{other.ID, first.ID, second.ID, fourth.ID}, got)
	stats, err = ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.OutboxStats{Delivered: 5}, stats)
}

// TestOutboxRetryPause checks that a failed event waits its pause
// before it is taken again, holding its key meanwhile.
func TestOutboxRetryPause(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema) // the default pauses: 10 s, 20 s, ...
	ctx := t.Context()
	ob := st.Outbox()
	first, second := statusEvent(t, "pay-1", 0), statusEvent(t, "pay-1", 1)
	require.NoError(t, ob.Publish(ctx, first))
	require.NoError(t, ob.Publish(ctx, second))
	n, err := ob.Consume(ctx, 10, func(context.Context, pgx.Tx, events.Envelope) error { return errors.New("down") })
	require.Error(t, err)
	assert.Zero(t, n)
	var got []string
	h := func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		got = append(got, e.ID)
		return nil
	}
	n, err = ob.Consume(ctx, 10, h)
	require.NoError(t, err)
	assert.Zero(t, n, "the failed event pauses, and holds the next one of its payment")
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 2, stats.Pending)
	assert.EqualValues(t, 1, stats.Retrying)
	var wait time.Duration
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT extract(epoch FROM next_attempt_at - failed_at)::bigint * interval '1 second' FROM `+
		pgx.Identifier{schema, "outbox"}.Sanitize()+` WHERE id = $1`, first.ID).Scan(&wait))
	assert.Equal(t, pgstore.DefaultRetryDelay, wait)

	// The pause is over (moved back, as time would).
	_, err = pgtest.Pool(t, 1).Exec(ctx, `UPDATE `+pgx.Identifier{schema, "outbox"}.Sanitize()+` SET next_attempt_at = now() - interval '1 second'`)
	require.NoError(t, err)
	delivered, failures := drain(t, ob, 10, h)
	assert.Empty(t, failures)
	assert.Equal(t, 2, delivered)
	assert.Equal(t, []string{first.ID, second.ID}, got)
}

// TestOutboxKeyOrderAcrossConsumers publishes 8 status changes for each
// of 20 payments, interleaved, while three consumers whose handler fails
// one attempt in five take them: every change is delivered once, and
// each payment's in the order they were published.
func TestOutboxKeyOrderAcrossConsumers(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	tbl := receivedTable(t, schema)
	const payments, changes = 20, 8
	want := map[string][]string{} // key: IDs in publication order
	for i := range changes {
		for p := range payments {
			e := statusEvent(t, fmt.Sprint("pay-", p), i)
			want[e.Key] = append(want[e.Key], e.ID)
			require.NoError(t, st.Outbox().Publish(ctx, e))
		}
	}
	var wg sync.WaitGroup
	for c := range 3 {
		cst := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0), pgstore.WithOutboxMaxAttempts(1000))
		r := rand.New(rand.NewPCG(uint64(c), 7))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ob := cst.Outbox()
			idle := 0
			for idle < 20 {
				n, err := ob.Consume(ctx, 5, func(ctx context.Context, tx pgx.Tx, e events.Envelope) error {
					if _, err := tx.Exec(ctx, `INSERT INTO `+tbl+` (id, key) VALUES ($1, $2)`, e.ID, e.Key); err != nil {
						return err
					}
					if r.IntN(5) == 0 {
						return errors.New("flaky")
					}
					return nil
				})
				var he *pgstore.HandlerError
				if err != nil && !errors.As(err, &he) {
					assert.NoError(t, err)
					return
				}
				if n == 0 && err == nil {
					idle++
					time.Sleep(time.Millisecond)
					continue
				}
				idle = 0
			}
		}()
	}
	wg.Wait()
	stats, err := st.Outbox().Stats(ctx)
	require.NoError(t, err)
	require.Zero(t, stats.Pending+stats.Dead, "%+v", stats)
	rows, err := pgtest.Pool(t, 1).Query(ctx, `SELECT id, key FROM `+tbl+` ORDER BY n`)
	require.NoError(t, err)
	got := map[string][]string{}
	count := 0
	for rows.Next() {
		var id, key string
		require.NoError(t, rows.Scan(&id, &key))
		got[key] = append(got[key], id)
		count++
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, payments*changes, count, "each change written once")
	assert.Equal(t, want, got, "each payment's changes in publication order")
}

// TestOutboxMigrationKeepsOldRows fills an outbox at schema version 2,
// as an older release left it, then migrates: the old rows, without a
// key or attempts, are delivered like new ones.
func TestOutboxMigrationKeepsOldRows(t *testing.T) {
	schema := pgtest.CreateSchema(t)
	ctx := t.Context()
	pool := pgtest.Pool(t, 2)
	q := pgx.Identifier{schema}.Sanitize()
	_, err := pool.Exec(ctx, `CREATE TABLE `+q+`.schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`)
	require.NoError(t, err)
	for v, name := range map[int]string{1: "0001_kv", 2: "0002_outbox"} {
		sql, err := os.ReadFile("migrations/" + name + ".sql")
		require.NoError(t, err)
		_, err = pool.Exec(ctx, strings.ReplaceAll(string(sql), "{{schema}}", q))
		require.NoError(t, err)
		_, err = pool.Exec(ctx, `INSERT INTO `+q+`.schema_migrations (version, name) VALUES ($1, $2)`, v, name)
		require.NoError(t, err)
	}
	old := []events.Envelope{statusEvent(t, "pay-1", 0), statusEvent(t, "pay-1", 1), statusEvent(t, "pay-2", 0)}
	for _, e := range old { // the insert of release 0.1
		_, err := pool.Exec(ctx, `INSERT INTO `+q+`.outbox (id, kind, at, data) VALUES ($1, $2, $3, $4)`, e.ID, string(e.Kind), e.At, []byte(e.Data))
		require.NoError(t, err)
	}
	_, err = pool.Exec(ctx, `UPDATE `+q+`.outbox SET delivered_at = now() WHERE id = $1`, old[2].ID)
	require.NoError(t, err)

	st := newOutboxStore(t, schema)
	v, err := st.Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, v)
	ob := st.Outbox()
	require.NoError(t, ob.Publish(ctx, old[2]), "a delivered old row still drops its ID")
	var got []events.Envelope
	delivered, failures := drain(t, ob, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		got = append(got, e)
		return nil
	})
	assert.Empty(t, failures)
	assert.Equal(t, 2, delivered)
	require.Len(t, got, 2)
	for i, e := range got {
		assert.Equal(t, old[i].ID, e.ID)
		assert.Empty(t, e.Key, "old rows have no key")
		ev, err := e.Event()
		require.NoError(t, err)
		assert.IsType(t, events.PaymentStatusChanged{}, ev)
	}
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, pgstore.OutboxStats{Delivered: 3}, stats)
}

// TestOutboxKeepsNoHandlerError makes a handler fail with an error that
// holds personal data: the outbox row keeps the count, not the text.
func TestOutboxKeepsNoHandlerError(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxMaxAttempts(1))
	ctx := t.Context()
	ob := st.Outbox()
	require.NoError(t, ob.Publish(ctx, outboxEvent(t, 0)))
	const secret = "mail to ola.nordmann@example.no for PSU 01017012345 failed"
	_, err := ob.Consume(ctx, 1, func(context.Context, pgx.Tx, events.Envelope) error { return errors.New(secret) })
	require.ErrorContains(t, err, secret, "the caller gets the error")
	var row string
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT row_to_json(o)::text FROM `+pgx.Identifier{schema, "outbox"}.Sanitize()+` o`).Scan(&row))
	assert.NotContains(t, row, "ola.nordmann")
	assert.NotContains(t, row, "01017012345")
	assert.Contains(t, row, `"attempts":1`)
}

// TestOutboxOptionsRefused checks the outbox options' bounds.
func TestOutboxOptionsRefused(t *testing.T) {
	for _, o := range []pgstore.Option{
		pgstore.WithOutboxMaxAttempts(0), pgstore.WithOutboxMaxAttempts(1001),
		pgstore.WithOutboxRetryDelay(-time.Second, time.Second), pgstore.WithOutboxRetryDelay(time.Hour, time.Minute),
		pgstore.WithOutboxRetryDelay(0, 8*24*time.Hour),
	} {
		_, err := pgstore.Open(t.Context(), "host=/nonexistent", o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "outbox")
	}
}
