package accounts_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/sca"
)

// spend records one call of the budget key in store, as a call without
// the PSU present does: it keeps the last limit calls (the benchmark never
// runs out) and appends now.
func spend(ctx context.Context, store accounts.BudgetStore, key string) error {
	const limit = accounts.DefaultBudgetLimit
	return store.Update(ctx, key, func(calls []time.Time) ([]time.Time, error) {
		if len(calls) >= limit {
			calls = calls[len(calls)-limit+1:]
		}
		return append(calls, time.Now()), nil
	})
}

// spendRound runs goroutines goroutines, each spending perGoroutine calls
// of its own account's budget in store, and returns how long they took.
func spendRound(b *testing.B, store accounts.BudgetStore, goroutines, perGoroutine int) time.Duration {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	start := time.Now()
	for g := range goroutines {
		key := accounts.BudgetKey{TPP: "PSDNO-FSA-TEST1", Bank: "https://psd2.bank.example/api",
			AccountID: fmt.Sprintf("enc!!bench-account-%d", g), Endpoint: accounts.EndpointBalances}.String()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perGoroutine {
				if err := spend(b.Context(), store, key); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return d
}

// BenchmarkBudgetSpendFileVsMemory: 4 goroutines spend the budgets of 4
// distinct accounts, in one round on an in-memory store and in the next on
// a FileStore (every spend an fsynced, atomically renamed file, under the
// key's flock). Rounds alternate so that both see the same machine load.
// It reports each store's throughput (spends/s), their ratio
// (file/memory), and the file store's speedup of 4 goroutines over 1
// (file-4g/1g: 1 would mean the goroutines wait on each other; the fsyncs
// of distinct accounts should overlap).
func BenchmarkBudgetSpendFileVsMemory(b *testing.B) {
	const goroutines, per = 4, 8
	fs, err := sca.NewFileStore(filepath.Join(b.TempDir(), "store"))
	if err != nil {
		b.Fatal(err)
	}
	file := accounts.BudgetStoreFromKV(fs, sca.ErrNotFound)
	mem := accounts.NewMemoryBudgetStore()
	var memD, fileD, file1D time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		memD += spendRound(b, mem, goroutines, per)
		fileD += spendRound(b, file, goroutines, per)
		file1D += spendRound(b, file, 1, goroutines*per)
		n++
	}
	spends := float64(n * goroutines * per)
	memRate, fileRate := spends/memD.Seconds(), spends/fileD.Seconds()
	b.ReportMetric(memRate, "memory-spends/s")
	b.ReportMetric(fileRate, "file-spends/s")
	b.ReportMetric(fileRate/memRate, "file/memory")
	b.ReportMetric(file1D.Seconds()/fileD.Seconds(), "file-4g/1g")
}
