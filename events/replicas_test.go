package events_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/store"
)

// Two replicas on one store emit the same fact at the same moment (each
// saw the bank's breaker open): each has a Handler sink of its own, and
// the fact reaches one of them, once. Before, each found it unpublished
// and published it: every Handler saw it.
func TestReplicasEmittingOneFactPublishItOnce(t *testing.T) {
	st := store.NewMemoryStore()
	var calls atomic.Int32
	entered := make(chan struct{})
	release := make(chan struct{})
	handler := func(ctx context.Context, e events.Envelope) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return nil
	}
	a, err := events.NewEmitter(events.Handler(handler), events.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	b, err := events.NewEmitter(events.Handler(handler), events.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	ev := events.PaymentStatusChanged{Payment: "ref-1", From: "RCVD", To: "ACSC"}
	first := make(chan error, 1)
	go func() { _, err := a.Emit(context.Background(), ev); first <- err }()
	<-entered // replica a is publishing
	second := make(chan error, 1)
	var secondPublished atomic.Bool
	go func() {
		ok, err := b.Emit(context.Background(), ev)
		secondPublished.Store(ok)
		second <- err
	}()
	// Give replica b the time to look while a publishes: before, it
	// published at once; now it waits for a's mark.
	var secondErr error
	secondDone := false
	select {
	case secondErr = <-second:
		secondDone = true
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if !secondDone {
		secondErr = <-second
	}
	if secondErr != nil {
		t.Fatal(secondErr)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("one fact emitted by two replicas at once reached their Handlers %d times, want 1", n)
	}
	if secondPublished.Load() {
		t.Fatal("the second replica says it published")
	}
}

// A replica whose publication fails ends its claim: another replica
// emitting the same fact meanwhile publishes it, so a failed publication
// never loses the event.
func TestReplicaPublishesWhenTheOtherFails(t *testing.T) {
	st := store.NewMemoryStore()
	entered := make(chan struct{})
	release := make(chan struct{})
	failing := events.Handler(func(ctx context.Context, e events.Envelope) error {
		close(entered)
		<-release
		return errors.New("sink down")
	})
	var published atomic.Int32
	working := events.Handler(func(ctx context.Context, e events.Envelope) error {
		published.Add(1)
		return nil
	})
	a, err := events.NewEmitter(failing, events.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	b, err := events.NewEmitter(working, events.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	ev := events.PaymentStatusChanged{Payment: "ref-2", From: "RCVD", To: "RJCT"}
	first := make(chan error, 1)
	go func() { _, err := a.Emit(context.Background(), ev); first <- err }()
	<-entered
	second := make(chan bool, 1)
	go func() {
		ok, err := b.Emit(context.Background(), ev)
		if err != nil {
			t.Error(err)
		}
		second <- ok
	}()
	select {
	case <-second:
		t.Fatal("the other replica did not wait for the publication under way")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-first; err == nil {
		t.Fatal("the failed publication is no error")
	}
	if ok := <-second; !ok || published.Load() != 1 {
		t.Fatalf("the other replica published %v (%d times), want once", ok, published.Load())
	}
}
