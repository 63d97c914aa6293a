package riverrefresh_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// A database that stops answering while the engine runs never holds its
// resume loop for good: each look at a bank is bounded (the look's
// context has a deadline) and Stop ends it. On the code before, a look
// ran on context.Background() and Stop waited for it without end: an
// engine whose database hung could not be stopped.
func TestHungLookNeverHoldsStop(t *testing.T) {
	w := newWorld(t, 1)
	e := w.engine(t, riverrefresh.Config{Work: true})
	require.NoError(t, e.Migrate(t.Context()))
	var looked, bounded atomic.Bool
	e.SetPauseSource("testbank", func(ctx context.Context) (time.Time, bool) {
		_, ok := ctx.Deadline()
		bounded.Store(ok)
		looked.Store(true)
		<-ctx.Done() // the database does not answer
		return time.Time{}, false
	})
	require.NoError(t, e.Start(t.Context()))
	require.Eventually(t, looked.Load, 10*time.Second, 20*time.Millisecond, "the resume loop looks at the bank")
	assert.True(t, bounded.Load(), "a look at the bank has a deadline")
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		stopped <- e.Stop(ctx)
	}()
	select {
	case err := <-stopped:
		assert.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("Stop waits on the hung look")
	}
}

// A database that stops answering while Migrate holds its lock never
// holds Migrate past its context's end: the release of the lock (the
// unlock, then the close of its connection) runs without Migrate's
// cancellation but within releaseTimeout (shorter here). On the code
// before, both ran on context.WithoutCancel, without any deadline, and
// Migrate waited on the hung database for ever.
func TestMigrateOnHungDatabaseReturns(t *testing.T) {
	w := newWorld(t, 1)
	svc := w.svc(t)
	hung := &pgtest.Hang{}
	hung.StartAt("river_migration") // the lock is taken, and then nothing answers
	e, err := riverrefresh.New(riverrefresh.Config{Pool: pgtest.HangingPool(t, hung, 3), Schema: pgtest.CreateSchema(t),
		Work: true, Banks: map[string]riverrefresh.Bank{"testbank": {Service: svc, Sessions: w.store}}})
	require.NoError(t, err)
	e.SetReleaseWait(200 * time.Millisecond)
	ended := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		ended <- e.Migrate(ctx)
	}()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded, "the migration waited on the hung database until Migrate's deadline")
	case <-time.After(time.Minute):
		t.Fatal("Migrate waits on the hung database")
	}
	hung.Stop()
	require.NoError(t, e.Migrate(t.Context()), "the database answers again, and the lock was let go")
}
