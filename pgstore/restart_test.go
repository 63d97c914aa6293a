package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
)

// After a restart or a failover of the database, the idle connections
// of the pool are dead: the first statement written on each fails before
// anything reaches the server ("broken pipe", "conn closed"). The store
// runs such a statement again on another connection, so no method fails:
// here every idle connection of the pool (four) is killed before each
// method, which then meets four dead connections before a live one.
func TestRestartIdleConnections(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	pool, restart := pgtest.RestartPool(t, 4)
	st, err := pgstore.New(pool, pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))

	// seed writes and reads on a pool of its own, which no restart
	// touches, so that each method below is checked alone.
	seed, err := pgstore.New(pgtest.Pool(t, 1), pgstore.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(seed.Close)

	restart(t)
	assert.NoError(t, st.Put(ctx, "k", []byte("v1"), 0), "put")
	v, err := seed.Get(ctx, "k")
	assert.NoError(t, err, "put")
	assert.Equal(t, []byte("v1"), v, "put")

	require.NoError(t, seed.Put(ctx, "k", []byte("v1"), 0))
	restart(t)
	v, err = st.Get(ctx, "k")
	assert.NoError(t, err, "get")
	assert.Equal(t, []byte("v1"), v, "get")

	restart(t)
	calls := 0
	assert.NoError(t, st.Update(ctx, "k", func(old []byte, found bool) ([]byte, time.Duration, error) {
		calls++
		assert.True(t, found)
		assert.Equal(t, []byte("v1"), old)
		return []byte("v2"), 0, nil
	}), "update")
	assert.LessOrEqual(t, calls, 1, "fn runs at most once: it never ran on a dead connection")

	require.NoError(t, seed.Put(ctx, "k", []byte("v2"), 0))
	restart(t)
	var keys []string
	var keysErr error
	for k, err := range st.Keys(ctx, "") {
		if err != nil {
			keysErr = err
			break
		}
		keys = append(keys, k)
	}
	assert.NoError(t, keysErr, "keys")
	assert.Equal(t, []string{"k"}, keys, "keys")

	restart(t)
	v, err = st.Take(ctx, "k")
	assert.NoError(t, err, "take")
	assert.Equal(t, []byte("v2"), v, "take")

	require.NoError(t, seed.Put(ctx, "d", []byte("x"), 0))
	restart(t)
	assert.NoError(t, st.Delete(ctx, "d"), "delete")
	_, err = seed.Get(ctx, "d")
	assert.ErrorIs(t, err, store.ErrNotStored, "delete")

	restart(t)
	_, err = st.Cleanup(ctx)
	assert.NoError(t, err, "cleanup")

	restart(t)
	n, err := st.Version(ctx)
	assert.NoError(t, err, "version")
	assert.Positive(t, n, "version")

	restart(t)
	assert.NoError(t, st.Migrate(ctx), "migrate")
}

// The outbox's own statements, run on the pool outside the store's
// transactions (the consumer's BEGIN, the reads of Stats, DeadLetters,
// List and Pending, each batch of Prune), meet the dead connections of a
// restart as the store's do: each runs again on another connection, so
// no method fails. Every idle connection of the pool (four) is killed
// before each method; the events each one needs are set up on a pool of
// their own, which no restart touches.
func TestRestartOutbox(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	pool, restart := pgtest.RestartPool(t, 4)
	// One failure makes a dead letter.
	opts := []pgstore.Option{pgstore.WithSchema(schema), pgstore.WithOutboxMaxAttempts(1)}
	st, err := pgstore.New(pool, opts...)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))
	ob := st.Outbox()
	seed, err := pgstore.New(pgtest.Pool(t, 1), opts...)
	require.NoError(t, err)
	t.Cleanup(seed.Close)
	sob := seed.Outbox()

	deliver := func(context.Context, pgx.Tx, events.Envelope) error { return nil }
	// kill makes e, the one event of the test that fails, a dead letter
	// (unless it is one already), through the seed's consumer, which
	// delivers any other event pending.
	kill := func(t *testing.T, e events.Envelope) {
		t.Helper()
		if s, err := sob.Stats(ctx); err == nil && s.Dead == 1 {
			return
		}
		_, err := sob.Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, got events.Envelope) error {
			if got.ID == e.ID {
				return errors.New("handler failed")
			}
			return nil
		})
		var he *pgstore.HandlerError
		require.ErrorAs(t, err, &he)
		require.Equal(t, e.ID, he.ID)
		require.True(t, he.Dead)
	}
	stats := func(t *testing.T) pgstore.OutboxStats {
		t.Helper()
		s, err := sob.Stats(ctx)
		require.NoError(t, err)
		s.OldestPending = time.Time{}
		return s
	}

	e0, e1, e2 := outboxEvent(t, 0), outboxEvent(t, 1), outboxEvent(t, 2)
	restart(t)
	assert.NoError(t, ob.Publish(ctx, e0), "publish")
	assert.Equal(t, pgstore.OutboxStats{Pending: 1}, stats(t), "publish")

	restart(t)
	n, err := ob.Consume(ctx, 10, deliver)
	assert.NoError(t, err, "consume")
	assert.Equal(t, 1, n, "consume")

	require.NoError(t, sob.Publish(ctx, e1))
	kill(t, e1)
	restart(t)
	s, err := ob.Stats(ctx)
	assert.NoError(t, err, "stats")
	s.OldestPending = time.Time{}
	assert.Equal(t, pgstore.OutboxStats{Dead: 1, Delivered: 1}, s, "stats")

	restart(t)
	dead, err := ob.DeadLetters(ctx, 10)
	assert.NoError(t, err, "dead letters")
	if assert.Len(t, dead, 1, "dead letters") {
		assert.Equal(t, e1.ID, dead[0].ID, "dead letters")
	}

	restart(t)
	s, dead, err = ob.List(ctx, 10)
	assert.NoError(t, err, "list")
	assert.Equal(t, int64(1), s.Dead, "list")
	assert.Len(t, dead, 1, "list")

	restart(t)
	pending, total, err := ob.Pending(ctx)
	assert.NoError(t, err, "pending")
	assert.Equal(t, [2]int64{0, 2}, [2]int64{pending, total}, "pending")

	restart(t)
	assert.NoError(t, ob.Retry(ctx, e1.ID), "retry")
	assert.Equal(t, pgstore.OutboxStats{Pending: 1, Delivered: 1}, stats(t), "retry")

	kill(t, e1)
	restart(t)
	n64, err := ob.RetryAll(ctx)
	assert.NoError(t, err, "retry all")
	assert.Equal(t, int64(1), n64, "retry all")

	kill(t, e1)
	restart(t)
	assert.NoError(t, ob.Discard(ctx, e1.ID), "discard")
	assert.Equal(t, pgstore.OutboxStats{Delivered: 2}, stats(t), "discard")

	restart(t)
	n64, err = ob.Prune(ctx, 0)
	assert.NoError(t, err, "prune")
	assert.Equal(t, int64(2), n64, "prune")

	// Run delivers e2, then waits for more until it is stopped: it ends
	// with its context's error, not the database's.
	require.NoError(t, sob.Publish(ctx, e2))
	restart(t)
	run, stop := context.WithCancel(ctx)
	defer stop()
	handled := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- ob.Run(run, 10, 10*time.Millisecond, func(context.Context, pgx.Tx, events.Envelope) error {
			select {
			case handled <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		assert.Fail(t, "run", "ended before delivering: %v", err)
	case <-handled:
		require.Eventually(t, func() bool { return stats(t).Pending == 0 }, 10*time.Second, 10*time.Millisecond, "run delivers")
		stop()
		assert.ErrorIs(t, <-done, context.Canceled, "run")
	}
	assert.Equal(t, pgstore.OutboxStats{Delivered: 1}, stats(t), "run")
}
