package pgstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// TestOutboxListIsOneSnapshot changes the outbox between List's two
// reads (its counts, then its dead letters): a dead letter retried, one
// discarded. List still reports the outbox of one moment: Dead counts
// the letters listed and Pending the event a letter holds. A listing
// that reads the two at two moments (as psd2 outbox list did, with
// Stats then DeadLetters) counts 2 dead letters and lists none.
func TestOutboxListIsOneSnapshot(t *testing.T) {
	t.Parallel()
	st, err := New(pgtest.Pool(t, 4), WithSchema(pgtest.Schema(t)), WithOutboxMaxAttempts(1))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	ctx := t.Context()
	require.NoError(t, st.Migrate(ctx))
	ob := st.Outbox()
	status := func(ref string, i int) events.Envelope {
		env, err := events.Wrap(events.PaymentStatusChanged{Payment: ref, From: fmt.Sprint("S", i), To: fmt.Sprint("S", i+1)}, time.Now())
		require.NoError(t, err)
		return env
	}
	a1, a2, b1 := status("pay-a", 0), status("pay-a", 1), status("pay-b", 0)
	for _, e := range []events.Envelope{a1, a2, b1} {
		require.NoError(t, ob.Publish(ctx, e))
	}
	_, err = ob.Consume(ctx, 10, func(context.Context, pgx.Tx, events.Envelope) error { return errors.New("refused") })
	require.Error(t, err)
	before, err := ob.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, OutboxStats{Dead: 2, Pending: 1, OldestPending: before.OldestPending}, before, "a1 and b1 dead, a2 held by a1")

	// Between the two reads, an operator retries a1 and discards b1.
	changed := 0
	ob.afterStats = func() {
		changed++
		require.NoError(t, st.Outbox().Retry(ctx, a1.ID))
		require.NoError(t, st.Outbox().Discard(ctx, b1.ID))
	}
	stats, dead, err := ob.List(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, 1, changed, "the outbox changed between the reads")
	assert.EqualValues(t, 2, stats.Dead)
	assert.EqualValues(t, 1, stats.Pending)
	assert.Zero(t, stats.Delivered)
	require.Len(t, dead, int(stats.Dead), "the letters listed are the letters counted")
	assert.Equal(t, a1.ID, dead[0].ID)
	assert.EqualValues(t, 1, dead[0].Holds, "a2, the one pending event")
	assert.Equal(t, b1.ID, dead[1].ID)

	// The changes were made: the next listing shows them.
	ob.afterStats = nil
	stats, dead, err = ob.List(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, OutboxStats{Pending: 2, Delivered: 1, OldestPending: stats.OldestPending}, stats)
	assert.Empty(t, dead)
	assert.NotNil(t, dead, "an empty list, not null")

	_, _, err = ob.List(ctx, 0)
	require.ErrorContains(t, err, "List limit 0")
	_, _, err = ob.List(ctx, MaxDeadLetters+1)
	require.Error(t, err)
}
