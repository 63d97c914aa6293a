package main

import (
	"context"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestQueueGauge: a collection of the queue gauges, after a round is
// enqueued at two banks one of whose queues is paused, shows each bank's
// counts as the engine's QueueStats reads them, and the paused queue's
// psd2.refresh.queue.paused at 1.
func TestQueueGauge(t *testing.T) {
	ctx := t.Context()
	schema := pgtest.CreateSchema(t)
	pool := pgtest.Pool(t, 8)
	srv := emulator.NewServer(emulator.WithLimits(refreshbench.Limits))
	t.Cleanup(srv.Close)
	creds, err := srv.NewTPP("Queue gauge test")
	if err != nil {
		t.Fatal(err)
	}
	// 5 customers of 2 accounts and 1 card account each: 3 at alpha (9
	// jobs), 2 at beta (6 jobs).
	seeded, err := srv.Control().Seed(ctx, creds.Certificate, refreshbench.Seed(5, 2, 1, 1, time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]store.Store{"alpha": store.NewMemoryStore(), "beta": store.NewMemoryStore()}
	for i, cu := range seeded.Customers {
		bank := "alpha"
		if i >= 3 {
			bank = "beta"
		}
		if err := sca.SaveSession(ctx, sessions[bank], "user-"+string(rune('a'+i)), refreshbench.Remembered(t, cu)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(srv.URL, creds, client.WithHTTPClient(srv.Client()),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := accounts.New(c)
	if err != nil {
		t.Fatal(err)
	}
	newEngine := func(work bool) *riverrefresh.Engine {
		e, err := riverrefresh.New(riverrefresh.Config{Pool: pool, Schema: schema, Work: work,
			Banks: map[string]riverrefresh.Bank{"alpha": {Service: svc, Sessions: sessions["alpha"]},
				"beta": {Service: svc, Sessions: sessions["beta"]}}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := newEngine(false)
	if err := e.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// River keeps a queue once a worker has had it: a worker starts with
	// nothing enqueued, beta's queue is paused (as an operator or the
	// bank's 429 would), and the worker stops before the round is
	// enqueued, so that the counts hold still while they are compared.
	pauseQueue(t, newEngine(true), "psd2_refresh_beta")
	enqueued := map[string]int{}
	for _, bank := range []string{"alpha", "beta"} {
		if enqueued[bank], err = e.Enqueue(ctx, bank); err != nil {
			t.Fatal(err)
		}
	}
	if enqueued["alpha"] != 9 || enqueued["beta"] != 6 {
		t.Fatalf("enqueued %v, want alpha 9 and beta 6", enqueued)
	}

	g, err := newQueueGauge(e)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	points, err := g.collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := e.QueueStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 2 || len(stats) != 2 {
		t.Fatalf("points of %d banks, stats of %d; want 2: %v", len(points), len(stats), points)
	}
	for _, s := range stats {
		p := points[s.Bank]
		if p == nil {
			t.Fatalf("no point of bank %s: %v", s.Bank, points)
		}
		want := map[string]int64{"available": s.Available, "running": s.Running, "scheduled": s.Scheduled,
			"retryable": s.Retryable, "discarded": s.Discarded, "cancelled": s.Cancelled}
		for _, state := range riverrefresh.QueueStates {
			got, ok := p.Jobs[state]
			if !ok || got != want[state] {
				t.Errorf("%s %s: gauge %d (present %v), QueueStats %d", s.Bank, state, got, ok, want[state])
			}
		}
		if len(p.Jobs) != len(riverrefresh.QueueStates) {
			t.Errorf("%s: states %v, want those of riverrefresh.QueueStates", s.Bank, p.Jobs)
		}
		if s.Available != int64(enqueued[s.Bank]) {
			t.Errorf("%s: QueueStats available %d, enqueued %d", s.Bank, s.Available, enqueued[s.Bank])
		}
	}
	if points["alpha"].Paused != 0 || points["beta"].Paused != 1 {
		t.Errorf("paused: alpha %d, beta %d; want 0 and 1", points["alpha"].Paused, points["beta"].Paused)
	}
	line, err := g.line(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const want = "alpha: available 9 running 0 scheduled 0 retryable 0 discarded 0 cancelled 0 paused 0; " +
		"beta: available 6 running 0 scheduled 0 retryable 0 discarded 0 cancelled 0 paused 1"
	if line != want {
		t.Errorf("line:\n%s\nwant\n%s", line, want)
	}
}

// pauseQueue starts worker until River knows queue, pauses it, and stops
// the worker.
func pauseQueue(t *testing.T, worker *riverrefresh.Engine, queue string) {
	t.Helper()
	ctx := t.Context()
	if err := worker.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := worker.Stop(stop); err != nil {
			t.Errorf("stopping the worker: %v", err)
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := worker.Client().QueueGet(ctx, queue); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("River has no queue %s after a minute", queue)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := worker.Client().QueuePause(ctx, queue, nil); err != nil {
		t.Fatal(err)
	}
}
