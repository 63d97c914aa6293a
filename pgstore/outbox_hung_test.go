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
)

// A consumer that stops (its context ends) while the database hangs is
// never held by the rollback that ends its batch: the rollback runs
// without the consumer's cancellation but within rollbackTimeout
// (shorter here), and the batch's events stay pending. On the code
// before, the rollback ran on context.WithoutCancel, without any
// deadline, and Consume waited on the hung database for ever.
func TestOutboxRollbackOnHungDatabaseIsBounded(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	hung := &pgtest.Hang{}
	st, err := pgstore.New(pgtest.HangingPool(t, hung, 2), pgstore.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, st.Migrate(t.Context()))
	t.Cleanup(st.Close)
	ob := st.Outbox()
	pgstore.SetRollbackWait(ob, 200*time.Millisecond)
	require.NoError(t, ob.Publish(t.Context(), outboxEvent(t, 1)))

	ctx, stop := context.WithCancel(context.Background()) // the consumer's: no deadline
	defer stop()
	handled := errors.New("the consumer is stopping")
	ended := make(chan error, 1)
	go func() {
		_, err := ob.Consume(ctx, 10, func(context.Context, pgx.Tx, events.Envelope) error {
			hung.Start() // the database stops answering
			stop()
			return handled
		})
		ended <- err
	}()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, handled)
	case <-time.After(time.Minute):
		t.Fatal("Consume waits on the hung database")
	}

	hung.Stop()
	pending, _, err := ob.Pending(t.Context())
	require.NoError(t, err)
	assert.EqualValues(t, 1, pending, "nothing committed: the event is pending again")
	// Once the database has ended the batch's transaction (its connection
	// was closed), the next batch delivers the event.
	require.Eventually(t, func() bool {
		n, err := ob.Consume(t.Context(), 10, func(context.Context, pgx.Tx, events.Envelope) error { return nil })
		return err == nil && n == 1
	}, 10*time.Second, 20*time.Millisecond, "the next batch delivers the event")
}
