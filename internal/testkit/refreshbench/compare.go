package refreshbench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// Counted is a store that counts its durable writes: each Put, and each
// Update whose function did not refuse (a refused Update writes nothing).
type Counted struct {
	store.Store
	writes atomic.Int64
}

// Update counts the write when it is made.
func (c *Counted) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	err := c.Store.Update(ctx, key, fn)
	if err == nil {
		c.writes.Add(1)
	}
	return err
}

// Put counts the write when it is made.
func (c *Counted) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	err := c.Store.Put(ctx, key, v, ttl)
	if err == nil {
		c.writes.Add(1)
	}
	return err
}

// Writes returns the writes made so far.
func (c *Counted) Writes() int64 { return c.writes.Load() }

// Store names a store for [Compare].
type Store struct {
	// Name names the store in the metrics ("file", "postgres").
	Name string
	// Store is the store; nil: a store.MemoryStore.
	Store store.Store
}

// Compare measures the background refresh with the budget in each of
// stores, the first being the baseline (memory), in one run: one
// emulator, one TPP per store with n seeded accounts of its own (so each
// store's budgets start empty), the refresher's default workers. Each
// round runs the stores in turn on chunks of chunkAccounts accounts,
// round robin, so that a change of the machine's load falls on every
// store alike. It reports, for every store after the first, "<name>/<first>"
// (the median over the chunks of its accounts per second over the
// first's on the same chunk index) and, for every store,
// "<name>-writes/account" (durable writes per account refresh, counted
// at the store, over the measured rounds).
//
// Compare's placement is not a TPP's: the emulator runs in the measuring
// process, so a refresher worker that waits for the file store's sync
// leaves its core to the bank's handlers, whose work the memory side
// pays in its own time; and the median over chunks of both rounds
// drops the slow chunks and mixes the first round (new budget keys)
// with the later ones. For the file store's goal against the memory
// store, measure with examples/internal/storeratio (the bank in a
// process of its own, first and later rounds apart).
func Compare(b *testing.B, n int, stores []Store) {
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(b)), emulator.WithClock(clock.Now), emulator.WithLimits(Limits))
	defer srv.Close()
	type side struct {
		name  string
		st    *Counted
		r     *refresh.Refresher
		jobs  []refresh.Job
		rates []float64
	}
	sides := make([]*side, len(stores))
	for i, s := range stores {
		creds, err := srv.NewTPP("Refresh bench " + s.Name)
		if err != nil {
			b.Fatal(err)
		}
		seeded, err := srv.Control().Seed(b.Context(), creds.Certificate, Seed((n+warmAccounts)/2, 2, 0, 8, clock.Now().Add(-2*time.Hour)))
		if err != nil {
			b.Fatal(err)
		}
		st := s.Store
		if st == nil {
			st = store.NewMemoryStore()
		}
		counted := &Counted{Store: st}
		c, err := client.New(srv.URL, creds, client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(counted))
		if err != nil {
			b.Fatal(err)
		}
		svc, err := accounts.New(c)
		if err != nil {
			b.Fatal(err)
		}
		r, err := refresh.New(svc)
		if err != nil {
			b.Fatal(err)
		}
		var jobs []refresh.Job
		for _, cu := range seeded.Customers {
			s := Remembered(b, cu)
			jobs = append(jobs, AccountJobs(b, s)...)
		}
		warm := jobs[len(jobs)-warmAccounts:]
		if err := runAll(b, r, warm); err != nil {
			b.Fatal(err)
		}
		sides[i] = &side{name: s.Name, st: counted, r: r, jobs: jobs[:n]}
	}
	writes0 := make([]int64, len(sides))
	for i, s := range sides {
		writes0[i] = s.st.Writes()
	}
	b.ResetTimer()
	for range b.N {
		clock.Add(refresh.DefaultSpacing)
		for k := 0; k < n; k += chunkAccounts {
			for _, s := range sides {
				chunk := s.jobs[k:min(k+chunkAccounts, n)]
				start := time.Now()
				if err := runAll(b, s.r, chunk); err != nil {
					b.Fatal(err)
				}
				s.rates = append(s.rates, float64(len(chunk))/time.Since(start).Seconds())
			}
		}
	}
	b.StopTimer()
	base := sides[0]
	for i, s := range sides {
		b.ReportMetric(float64(s.st.Writes()-writes0[i])/float64(b.N*n), s.name+"-writes/account")
		b.ReportMetric(median(s.rates), s.name+"-accounts/s")
		if i == 0 {
			continue
		}
		ratios := make([]float64, len(s.rates))
		for j := range s.rates {
			ratios[j] = s.rates[j] / base.rates[j]
		}
		b.ReportMetric(median(ratios), s.name+"/"+base.name)
	}
}
