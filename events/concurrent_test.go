package events_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/events"
)

// TestEmitConcurrentSameFactOnce: two replicas' jobs in one process (or a
// refresh job and a payment follower) emitting the same fact at once
// publish it once; the second waits for the first and finds it published.
func TestEmitConcurrentSameFactOnce(t *testing.T) {
	var calls atomic.Int32
	entered := make(chan struct{})
	release := make(chan struct{})
	h := events.Handler(func(ctx context.Context, e events.Envelope) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return nil
	})
	em, err := events.NewEmitter(h)
	if err != nil {
		t.Fatal(err)
	}
	ev := events.PaymentStatusChanged{Payment: "ref-1", From: "RCVD", To: "ACSC"}
	first := make(chan bool, 1)
	go func() {
		ok, _ := em.Emit(context.Background(), ev)
		first <- ok
	}()
	<-entered
	second := make(chan bool, 1)
	go func() {
		ok, _ := em.Emit(context.Background(), ev)
		second <- ok
	}()
	select {
	case <-second:
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-first
	if n := calls.Load(); n != 1 {
		t.Fatalf("the same fact emitted twice at once was published %d times, want 1", n)
	}
}
