package budget_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// spendRound runs goroutines goroutines, each making perGoroutine counted
// calls (balances without the PSU) on its own account through svc, and
// returns how long they took. The budget is reset first, so that no
// round runs out.
func spendRound(b *testing.B, svc *accounts.Service, goroutines, perGoroutine int) time.Duration {
	b.Helper()
	ids := make([]string, goroutines)
	for g := range ids {
		ids[g] = fmt.Sprintf("enc!!bench-account-%d", g)
		if err := budgetOf(svc).Reset(b.Context(), ids[g], budget.Balances); err != nil {
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	start := time.Now()
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perGoroutine {
				if _, err := svc.Balances(b.Context(), id, psuAbsent()...); err != nil {
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

// BenchmarkBudgetSpendFileVsMemory: 4 goroutines make counted calls on 4
// distinct accounts against a local bank, in one round with the budget in
// an in-memory store and in the next in a store.FileStore (every call
// reserves in an fsynced, atomically renamed file, under the key's
// flock). Rounds alternate so that both see the same machine load. It
// reports each store's throughput (calls/s), their ratio (file/memory:
// what the file store costs a counted call, signing and HTTP included),
// and the file store's speedup of 4 goroutines over 1 (file-4g/1g: 1
// would mean the calls wait on each other; those of distinct accounts
// should overlap).
func BenchmarkBudgetSpendFileVsMemory(b *testing.B) {
	const goroutines, per = 4, 8
	bank := newCountingBank(b)
	fs, err := store.NewFileStore(filepath.Join(b.TempDir(), "store"))
	if err != nil {
		b.Fatal(err)
	}
	limit := budget.WithLimit(goroutines*per, budget.DefaultWindow)
	mem := newService(b, bank.client(b, client.WithStore(store.NewMemoryStore())), limit)
	file := newService(b, bank.client(b, client.WithStore(fs)), limit)
	var memD, fileD, file1D time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		memD += spendRound(b, mem, goroutines, per)
		fileD += spendRound(b, file, goroutines, per)
		file1D += spendRound(b, file, 1, goroutines*per)
		n++
	}
	calls := float64(n * goroutines * per)
	memRate, fileRate := calls/memD.Seconds(), calls/fileD.Seconds()
	b.ReportMetric(memRate, "memory-calls/s")
	b.ReportMetric(fileRate, "file-calls/s")
	b.ReportMetric(fileRate/memRate, "file/memory")
	b.ReportMetric(file1D.Seconds()/fileD.Seconds(), "file-4g/1g")
}
