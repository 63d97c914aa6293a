package pgstore_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// Sizes of the latency benchmarks: 10,000 operations per round, spread
// over 8 concurrent clients (each a Store on a pool of its own, as 8
// replicas would be).
const (
	benchOps     = 10_000
	benchClients = 8
	benchAccts   = 1_000
)

// latencies collects operation times from several goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d []time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d...)
	l.mu.Unlock()
}

// report sorts the times and reports p50, p99 and max in microseconds.
func (l *latencies) report(b *testing.B) {
	slices.Sort(l.d)
	if len(l.d) == 0 {
		return
	}
	q := func(p float64) float64 {
		return float64(l.d[min(int(p*float64(len(l.d))), len(l.d)-1)].Microseconds())
	}
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(float64(l.d[len(l.d)-1].Microseconds()), "max-µs")
	b.ReportMetric(float64(len(l.d)), "ops")
}

// clients returns n migrated Stores on one schema, each on a pool of its
// own with conns connections.
func clients(b *testing.B, n int, conns int32) []*pgstore.Store {
	schema := pgtest.Schema(b)
	out := make([]*pgstore.Store, n)
	for i := range out {
		out[i] = newStore(b, schema, conns)
	}
	return out
}

// BenchmarkTake: take-once latency. Each round puts 10,000 pending SCAs
// (not timed), then 8 clients take them, each its own share.
func BenchmarkTake(b *testing.B) {
	b.ReportAllocs()
	sts := clients(b, benchClients, 2)
	ctx := b.Context()
	var lat latencies
	value := []byte(`{"key":"user-42","state":"x","tppSessionId":"y","redirectUri":"https://tpp.example/cb?state=x"}`)
	for round := range b.N {
		b.StopTimer()
		var wg sync.WaitGroup
		for c, st := range sts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; i < benchOps; i += benchClients {
					if err := st.Put(ctx, fmt.Sprintf("sca/pending/%d/%05d", round, i), value, time.Hour); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b.StartTimer()
		for c, st := range sts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := make([]time.Duration, 0, benchOps/benchClients+1)
				for i := c; i < benchOps; i += benchClients {
					start := time.Now()
					if _, err := st.Take(ctx, fmt.Sprintf("sca/pending/%d/%05d", round, i)); err != nil {
						b.Error(err)
						return
					}
					d = append(d, time.Since(start))
				}
				lat.add(d)
			}()
		}
		wg.Wait()
	}
	lat.report(b)
}

// spend is the budget's read-modify-write as package accounts does it:
// the call times of one account and endpoint (JSON Unix nanoseconds),
// pruned to the window, one appended while fewer than limit remain, the
// value kept until its last call leaves the window.
func spend(now time.Time, limit int, window time.Duration) func(old []byte, found bool) ([]byte, time.Duration, error) {
	return func(old []byte, found bool) ([]byte, time.Duration, error) {
		var nanos []int64
		if found {
			if err := json.Unmarshal(old, &nanos); err != nil {
				return nil, 0, err
			}
		}
		kept := nanos[:0]
		for _, n := range nanos {
			if now.Sub(time.Unix(0, n)) < window {
				kept = append(kept, n)
			}
		}
		if len(kept) < limit {
			kept = append(kept, now.UnixNano())
		}
		v, err := json.Marshal(kept)
		return v, window, err
	}
}

// BenchmarkBudgetUpdate: latency of the budget's Update, 10,000 per
// round from 8 clients on 1,000 accounts chosen at random (so clients
// meet on the same rows).
func BenchmarkBudgetUpdate(b *testing.B) {
	b.ReportAllocs()
	sts := clients(b, benchClients, 2)
	ctx := b.Context()
	var lat latencies
	for round := range b.N {
		var wg sync.WaitGroup
		for c, st := range sts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(c)))
				d := make([]time.Duration, 0, benchOps/benchClients)
				for range benchOps / benchClients {
					key := fmt.Sprintf("accounts/budget/bench/%d/%04d", round, rng.IntN(benchAccts))
					start := time.Now()
					if err := st.Update(ctx, key, spend(time.Now(), 4, 24*time.Hour)); err != nil {
						b.Error(err)
						return
					}
					d = append(d, time.Since(start))
				}
				lat.add(d)
			}()
		}
		wg.Wait()
	}
	lat.report(b)
}

// The budget's cap holds between 8 clients at the store level: of many
// attempts on each of 1,000 accounts, exactly 4 are granted per account.
func TestBudgetCapAcrossClients(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	sts := make([]*pgstore.Store, benchClients)
	for i := range sts {
		sts[i] = newStore(t, schema, 2)
	}
	const accts, attempts = 200, 6 // per client and account
	granted := make([]int, accts)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, st := range sts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range accts {
				for range attempts {
					key := fmt.Sprintf("accounts/budget/%04d", a)
					before := -1
					err := st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
						var nanos []int64
						if found {
							_ = json.Unmarshal(old, &nanos)
						}
						before = len(nanos)
						return spend(time.Now(), 4, 24*time.Hour)(old, found)
					})
					require.NoError(t, err)
					if before < 4 {
						mu.Lock()
						granted[a]++
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	for a, n := range granted {
		require.Equal(t, 4, n, "account %d: calls granted by %d clients", a, benchClients)
	}
}
