package events_test

import (
	"context"
	"errors"
	"sync"
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

// A publication that outlasts the claim's life (a Handler that ignores
// its context, or a slow store) keeps its claim: another replica emitting
// the same fact meanwhile waits for the mark and publishes nothing.
// Before, the claim ended with its TTL under the publication still under
// way, and the other replica took it, found no mark and published the
// fact a second time.
func TestSlowPublicationKeepsItsClaim(t *testing.T) {
	st := store.NewMemoryStore()
	var calls atomic.Int32
	entered := make(chan struct{})
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseA := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseA)
	handler := func(ctx context.Context, e events.Envelope) error {
		if calls.Add(1) == 1 {
			close(entered)
			<-release // ignores ctx, as a Handler may
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
	// Replica a's claim lives 2×50 ms and a second; replica b waits for
	// it up to 2×1 s, a second and 1 s, well past that.
	events.SetStoreWait(a, 50*time.Millisecond)
	events.SetStoreWait(b, time.Second)
	ev := events.PaymentStatusChanged{Payment: "ref-3", From: "RCVD", To: "ACSC"}
	first := make(chan error, 1)
	go func() { _, err := a.Emit(context.Background(), ev); first <- err }()
	<-entered
	second := make(chan error, 1)
	var secondPublished atomic.Bool
	go func() {
		ok, err := b.Emit(context.Background(), ev)
		secondPublished.Store(ok)
		second <- err
	}()
	// Replica a publishes past its claim's life (1.1 s).
	time.Sleep(1500 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("while replica a still publishes, the fact reached the Handlers %d times, want 1", n)
	}
	releaseA()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 || secondPublished.Load() {
		t.Fatalf("the fact reached the Handlers %d times (second replica published: %v), want once", n, secondPublished.Load())
	}
}
