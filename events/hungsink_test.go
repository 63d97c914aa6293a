package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
)

// hungSink is a Sink whose database stopped answering, as pgstore's
// outbox on a hung database: Publish returns only when its context ends.
type hungSink struct{ calls chan struct{} }

func (s hungSink) Publish(ctx context.Context, _ events.Envelope) error {
	s.calls <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// A sink on a hung database (pgstore's outbox, the Sink across replicas)
// never holds an Emitter's check, even on a context without a deadline,
// as in the OnChange subscription the package shows, which runs on the
// goroutine of the call that changed the breaker: the publication is
// given up on after the emitter's bound, with an error, and nothing is
// remembered, so that the next check publishes the event. On the code
// before, only the store's calls were bounded: Publish ran on the
// caller's context, and the check waited on the hung outbox for ever.
func TestHungSinkHoldsNoEmit(t *testing.T) {
	t.Parallel()
	sink := hungSink{calls: make(chan struct{}, 2)}
	em, err := events.NewEmitter(sink)
	require.NoError(t, err)
	events.SetStoreWait(em, 100*time.Millisecond)
	open := client.BreakerChange{Scope: "s", From: client.BreakerClosed, To: client.BreakerOpen,
		Downtime: client.Downtime{Start: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}}
	ended := make(chan error, 1)
	go func() { ended <- em.Breaker(context.Background(), open) }()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(3 * time.Second):
		t.Fatal("Emit waits on the hung sink")
	}
	// Not remembered: the next check publishes it again.
	go func() { ended <- em.Breaker(context.Background(), open) }()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(3 * time.Second):
		t.Fatal("Emit waits on the hung sink")
	}
	assert.Len(t, sink.calls, 2, "published again")
}
