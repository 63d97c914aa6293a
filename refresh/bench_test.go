package refresh_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/syncscript"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// BenchmarkRefresh refreshes 1,000, 10,000 and 30,000 seeded accounts
// (two per PSU, 10 transactions each) with the budget in memory and in a
// store.FileStore, with the default workers (GOMAXPROCS) and, for the
// file store, with 3, 4 and 8 (a worker waiting for a sync leaves its
// core to another), against the RSA signing floor measured in the same
// run. It reports figures and asserts nothing about time; package
// internal/testkit/refreshbench runs it and explains its metrics (the pgstore
// module measures PostgreSQL the same way). Run it with
//
//	go test ./refresh -run '^$' -bench Refresh -benchtime 1x -timeout 60m
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 30_000} {
		for _, kind := range []string{"memory", "file"} {
			workers := []int{0}
			if kind == "file" {
				workers = append(workers, 3, 4, 8)
			}
			for _, w := range workers {
				name := fmt.Sprintf("accounts=%d/store=%s", n, kind)
				if w > 0 {
					name += fmt.Sprintf("/workers=%d", w)
				}
				b.Run(name, func(b *testing.B) {
					var st store.Store // nil: the client's in-memory store
					if kind == "file" {
						fs, err := store.NewFileStore(filepath.Join(b.TempDir(), "store"))
						if err != nil {
							b.Fatal(err)
						}
						st = fs
					}
					refreshbench.Run(b, n, st, w)
				})
			}
		}
	}
}

// BenchmarkSyncRound refreshes the scripted PSU's account with and
// without WithSync, interleaved round by round in one run (the
// in-process emulator's time included in both), and reports the time per
// round of each and their ratio, sync/plain. Run it with
//
//	go test ./refresh -run '^$' -bench SyncRound -benchtime 40x
func BenchmarkSyncRound(b *testing.B) {
	w, err := syncscript.Start(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	sy, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(w.Clock.Now))
	if err != nil {
		b.Fatal(err)
	}
	listed, err := w.List(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sy.Link(b.Context(), w.Owner, listed, nil); err != nil {
		b.Fatal(err)
	}
	plain, err := refresh.New(w.Svc, refresh.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	synced, err := refresh.New(w.Svc, refresh.WithWorkers(1), refresh.WithSync(sy))
	if err != nil {
		b.Fatal(err)
	}
	job := newJob(b, w.Session, w.Customer.Accounts[0].ID, false)
	job.Want, job.Force = refresh.Transactions, true
	var tPlain, tSync time.Duration
	for range b.N {
		// Two calls a round: the budget of 4 a day allows a round every
		// 12 hours and its margin.
		w.Wait(12*time.Hour + 6*time.Minute)
		t0 := time.Now()
		res := plain.Refresh(b.Context(), job)
		t1 := time.Now()
		sres := synced.Refresh(b.Context(), job)
		tPlain, tSync = tPlain+t1.Sub(t0), tSync+time.Since(t1)
		if res.Outcome != refresh.Done || sres.Outcome != refresh.Done || sres.Sync == nil {
			b.Fatalf("plain %v, synced %v", res, sres)
		}
	}
	b.ReportMetric(float64(tPlain.Nanoseconds())/float64(b.N), "plain-ns/round")
	b.ReportMetric(float64(tSync.Nanoseconds())/float64(b.N), "sync-ns/round")
	b.ReportMetric(float64(tSync)/float64(tPlain), "sync/plain")
}
