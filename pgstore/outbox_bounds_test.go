package pgstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// An envelope whose data, ID, Key or Kind is above the outbox's bounds
// is refused by Publish and PublishTx, and nothing is stored: a consumer
// reads a batch of events at once, and a row of megabytes would strain
// every consumer that takes it. An envelope at the bounds is kept.
//
// Before the bounds, a 1 MiB event (and any larger) was stored.
func TestOutboxPublishBounds(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	ob := st.Outbox()
	pool := pgtest.Pool(t, 1)
	at := time.Now()
	data := func(n int) json.RawMessage { return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`) }
	long := strings.Repeat("a", pgstore.MaxEventIDLen+1)
	refused := []events.Envelope{
		{ID: "big", Key: "k", Kind: "k", At: at, Data: data(pgstore.MaxEventDataLen + 1)},
		{ID: "huge", Key: "k", Kind: "k", At: at, Data: data(1 << 20)},
		{ID: long, Key: "k", Kind: "k", At: at, Data: data(4)},
		{ID: "key", Key: long, Kind: "k", At: at, Data: data(4)},
		{ID: "kind", Key: "k", Kind: events.Kind(long), At: at, Data: data(4)},
	}
	for _, e := range refused {
		assert.Error(t, ob.Publish(ctx, e), "Publish %.20s", e.ID)
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		assert.Error(t, ob.PublishTx(ctx, tx, e), "PublishTx %.20s", e.ID)
		require.NoError(t, tx.Commit(ctx))
	}
	_, total, err := ob.Pending(ctx)
	require.NoError(t, err)
	assert.Zero(t, total, "nothing stored")

	edge := strings.Repeat("b", pgstore.MaxEventIDLen)
	require.NoError(t, ob.Publish(ctx, events.Envelope{ID: edge, Key: edge, Kind: events.Kind(edge), At: at, Data: data(pgstore.MaxEventDataLen)}))
	_, total, err = ob.Pending(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, total)
}

// Consume takes at most MaxConsumeBatch events in one transaction
// whatever n it is given: a consumer never holds more rows, locks and
// event data at once. The rest is left pending for the next batch.
//
// Before the bound, Consume(ctx, 5000, h) took all 1005.
func TestOutboxConsumeBatchIsBounded(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	ob := st.Outbox()
	pool := pgtest.Pool(t, 1)
	const published = pgstore.MaxConsumeBatch + 5
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	for i := range published {
		require.NoError(t, ob.PublishTx(ctx, tx, outboxEvent(t, i)))
	}
	require.NoError(t, tx.Commit(ctx))
	handled := 0
	h := func(context.Context, pgx.Tx, events.Envelope) error { handled++; return nil }
	n, err := ob.Consume(ctx, 5*pgstore.MaxConsumeBatch, h)
	require.NoError(t, err)
	assert.Equal(t, pgstore.MaxConsumeBatch, n)
	assert.Equal(t, pgstore.MaxConsumeBatch, handled)
	n, err = ob.Consume(ctx, 5*pgstore.MaxConsumeBatch, h)
	require.NoError(t, err)
	assert.Equal(t, published-pgstore.MaxConsumeBatch, n)
}
