package pgstore_test

import (
	"context"
	"errors"
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

// storedRow is an outbox row as anything may have written it: an earlier
// release, an operator's INSERT, another application.
type storedRow struct {
	id, key, kind, at string
	dataLen           int
}

// insertRaw writes r into the outbox of schema by hand, past Publish's
// checks.
func insertRaw(t *testing.T, schema string, r storedRow) {
	t.Helper()
	tbl := pgx.Identifier{schema, "outbox"}.Sanitize()
	_, err := pgtest.Pool(t, 1).Exec(t.Context(), `INSERT INTO `+tbl+` (id, key, kind, at, data)
		VALUES ($1, NULLIF($2, ''), $3, $4::timestamptz, convert_to('"' || repeat('x', $5::int - 2) || '"', 'UTF8'))`,
		r.id, r.key, r.kind, r.at, r.dataLen)
	require.NoError(t, err)
}

// An event stored above the outbox's bounds (data above MaxEventDataLen,
// a Kind or Key above MaxEventIDLen), or with a time that is not finite,
// is one no Publish could write: an earlier release or a hand-made row.
// Consume never hands it to the handler nor reads its data: it becomes a
// dead letter at its first attempt, once, reported as a HandlerError
// matching ErrStoredEventRefused (and to the observer), and listed with
// its reason. The events of other keys go on; the later events of its
// own key wait behind it as behind any dead letter, and go on once it is
// discarded.
//
// Before, a 1 MiB event was read whole into every batch that took it
// and given to the handler; one with a time of 'infinity' failed the
// scan of the whole batch, so Consume returned an error, counted no
// attempt, and Run stopped at it again and again: nothing else was
// delivered.
func TestOutboxStoredEventOutOfBoundsIsDeadAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		row    storedRow
		reason string
	}{
		{"data of 1 MiB", storedRow{id: "big", key: "k-bad", kind: "k", at: "2026-01-01T00:00:00Z", dataLen: 1 << 20}, "1048576 bytes"},
		{"data one byte above", storedRow{id: "edge", key: "k-bad", kind: "k", at: "2026-01-01T00:00:00Z", dataLen: pgstore.MaxEventDataLen + 1}, "65537 bytes"},
		{"kind above its bound", storedRow{id: "kind", key: "k-bad", kind: strings.Repeat("k", pgstore.MaxEventIDLen+1), at: "2026-01-01T00:00:00Z", dataLen: 4}, "Kind"},
		{"key above its bound", storedRow{id: "key", key: strings.Repeat("k", pgstore.MaxEventIDLen+1), kind: "k", at: "2026-01-01T00:00:00Z", dataLen: 4}, "Key"},
		{"time not finite", storedRow{id: "never", key: "k-bad", kind: "k", at: "infinity", dataLen: 4}, "time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := pgtest.Schema(t)
			var mu sync.Mutex
			var seen []pgstore.OutboxAttempt
			st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0),
				pgstore.WithOutboxObserver(func(_ context.Context, a pgstore.OutboxAttempt) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, a)
				}))
			ctx := t.Context()
			ob := st.Outbox()
			before := outboxEvent(t, 1)
			require.NoError(t, ob.Publish(ctx, before))
			insertRaw(t, schema, tc.row)
			after := outboxEvent(t, 2)
			require.NoError(t, ob.Publish(ctx, after))
			// An event of its key waits behind it, unless its key is one
			// Publish refuses.
			var held []string
			if len(tc.row.key) <= pgstore.MaxEventIDLen {
				require.NoError(t, ob.Publish(ctx, events.Envelope{ID: "held", Key: tc.row.key, Kind: "k", At: before.At, Data: []byte(`"x"`)}))
				held = []string{"held"}
			}

			var handled []string
			h := func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
				handled = append(handled, e.ID)
				return nil
			}
			// The first batch takes the three first events; the last waits
			// behind the one stored out of bounds.
			delivered, err := ob.Consume(ctx, 10, h)
			var he *pgstore.HandlerError
			require.ErrorAs(t, err, &he, "the event's failure, not one of the batch")
			more, failures := drain(t, ob, 10, h)
			delivered += more
			failures = append(failures, he)
			assert.NotContains(t, handled, tc.row.id, "never handed to the handler")
			assert.Equal(t, 2, delivered, "the events of other keys go on")
			assert.ElementsMatch(t, []string{before.ID, after.ID}, handled)
			require.Len(t, failures, 1, "one attempt, not retried")
			f := failures[0]
			assert.Equal(t, tc.row.id, f.ID)
			assert.Equal(t, 1, f.Attempt)
			assert.True(t, f.Dead, "a dead letter at once")
			assert.ErrorIs(t, f, pgstore.ErrStoredEventRefused)
			assert.Contains(t, f.Error(), tc.reason)

			mu.Lock()
			var mine []pgstore.OutboxAttempt
			for _, a := range seen {
				if a.ID == tc.row.id {
					mine = append(mine, a)
				}
			}
			mu.Unlock()
			require.Len(t, mine, 1)
			assert.Equal(t, pgstore.OutboxDead, mine[0].Outcome)
			assert.True(t, errors.Is(mine[0].Err, pgstore.ErrStoredEventRefused))

			stats, err := ob.Stats(ctx)
			require.NoError(t, err, "the counts are read whatever the row holds")
			assert.Equal(t, int64(1), stats.Dead)
			assert.Equal(t, int64(len(held)), stats.Pending, "its key's later event waits")
			_, dead, err := ob.List(ctx, 10)
			require.NoError(t, err, "the listing is read whatever the row holds")
			require.Len(t, dead, 1)
			assert.Equal(t, tc.row.id, dead[0].ID)
			assert.Equal(t, 1, dead[0].Attempts)
			assert.EqualValues(t, len(held), dead[0].Holds)
			assert.Contains(t, dead[0].Reason, tc.reason)

			require.NoError(t, ob.Discard(ctx, tc.row.id))
			handled = nil
			delivered, failures = drain(t, ob, 10, h)
			assert.Empty(t, failures)
			assert.Equal(t, len(held), delivered)
			assert.Equal(t, held, handled)
		})
	}
}

// A dead letter the handler failed keeps no reason: the handler's error
// is never stored (it may hold personal data), and the row is within
// bounds.
func TestOutboxDeadLetterOfHandlerHasNoReason(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema, pgstore.WithOutboxRetryDelay(0, 0), pgstore.WithOutboxMaxAttempts(1))
	ctx := t.Context()
	ob := st.Outbox()
	e := outboxEvent(t, 1)
	require.NoError(t, ob.Publish(ctx, e))
	_, failures := drain(t, ob, 10, func(context.Context, pgx.Tx, events.Envelope) error { return errors.New("refused") })
	require.Len(t, failures, 1)
	assert.False(t, errors.Is(failures[0], pgstore.ErrStoredEventRefused))
	dead, err := ob.DeadLetters(ctx, 10)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Empty(t, dead[0].Reason)
}

// Stats and List read the outbox while a row stored with a time that is
// not finite waits for a consumer: such a row is left out of
// OldestPending, not a failure of every read of the gauges.
//
// Before, a pending row at '-infinity' made Stats and List fail ("cannot
// scan -Infinity") until a consumer took it.
func TestOutboxStatsReadWithARowOfInfiniteTime(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	ob := st.Outbox()
	e := outboxEvent(t, 1)
	require.NoError(t, ob.Publish(ctx, e))
	insertRaw(t, schema, storedRow{id: "never", key: "k-bad", kind: "k", at: "-infinity", dataLen: 4})
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), stats.Pending)
	assert.Equal(t, e.At.UTC().Truncate(time.Microsecond), stats.OldestPending)
	_, _, err = ob.List(ctx, 10)
	require.NoError(t, err)
}
