package events_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/store"
)

// A hung database never holds an Emitter's check, even on a context
// without a deadline (as in the OnChange subscription events' doc shows,
// which runs on the goroutine of the call that changed the breaker): the
// store's read is given up on after the emitter's bound, with an error.
// On the code before, it waited for as long as the caller's context,
// which had no end.
func TestHungStoreHoldsNoEmit(t *testing.T) {
	t.Parallel()
	hung := hungstore.New(t, nil, "events/")
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithStore(hung))
	require.NoError(t, err)
	events.SetStoreWait(em, 100*time.Millisecond)
	ended := make(chan error, 1)
	go func() {
		ended <- em.Breaker(context.Background(), client.BreakerChange{Scope: "s", From: client.BreakerClosed, To: client.BreakerOpen})
	}()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(3 * time.Second):
		t.Fatal("Emit waits on the hung store")
	}
	assert.Empty(t, col.evs, "nothing published without the store's word")
}

// An event published just as the caller's context ends is still
// remembered: the mark after the publication has a context of its own,
// so that the next check does not publish it again. On the code before,
// the mark was written on the caller's ended context and failed.
func TestPublishedEventIsRememberedPastTheCallersEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	sink := events.Handler(func(context.Context, events.Envelope) error {
		n++
		cancel() // the caller's deadline comes as the sink returns
		return nil
	})
	em, err := events.NewEmitter(sink, events.WithStore(store.NewMemoryStore()))
	require.NoError(t, err)
	err = em.PaymentStatus(ctx, "req-1", "RCVD", "ACSC")
	require.False(t, errors.Is(err, context.Canceled), "the mark was written: %v", err)
	require.NoError(t, em.PaymentStatus(t.Context(), "req-1", "RCVD", "ACSC"))
	assert.Equal(t, 1, n, "published once")
}
