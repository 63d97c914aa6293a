package riverrefresh_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
