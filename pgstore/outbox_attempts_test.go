package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// An event whose stored attempts count is at integer's end (2147483647:
// a hand-made or damaged row), and whose handler fails, becomes a dead
// letter; the batch it was in commits, and the other events are
// delivered. Before, writing its next attempt (2147483648) failed the
// whole batch with "integer out of range": Consume returned an error,
// nothing was delivered, and Run stopped at it on every start.
func TestOutboxAttemptsAtIntegersEndMakeADeadLetter(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	ob := st.Outbox()
	require.NoError(t, ob.Publish(ctx, events.Envelope{ID: "worn", Key: "k-1", Kind: "k", At: outboxEvent(t, 1).At, Data: []byte(`"x"`)}))
	other := outboxEvent(t, 2)
	require.NoError(t, ob.Publish(ctx, other))
	_, err := pgtest.Pool(t, 1).Exec(ctx, `UPDATE `+pgx.Identifier{schema, "outbox"}.Sanitize()+` SET attempts = 2147483647 WHERE id = 'worn'`)
	require.NoError(t, err)

	var handled []string
	n, err := ob.Consume(ctx, 10, func(_ context.Context, _ pgx.Tx, e events.Envelope) error {
		if e.ID == "worn" {
			return errors.New("handler down")
		}
		handled = append(handled, e.ID)
		return nil
	})
	var he *pgstore.HandlerError
	require.ErrorAs(t, err, &he, "the event's failure, not the batch's")
	assert.True(t, he.Dead)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{other.ID}, handled)
	stats, err := ob.Stats(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, stats.Dead)
	assert.Zero(t, stats.Pending)
}
