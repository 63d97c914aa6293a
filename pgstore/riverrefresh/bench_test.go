package riverrefresh_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// BenchmarkRiverRound refreshes one round of n accounts (2,000, or
// RIVERREFRESH_BENCH_ACCOUNTS) twice in one run, on one emulator with a
// TPP each: by the in-process refresher with the budget in memory and 4
// workers (the baseline), then by two River engines over PostgreSQL (two replicas in
// this process, 2 workers each, the budget in the pgstore Store). It
// reports river/memory (accounts per second of the engines over the
// refresher's), refreshes/account (1) and over-budget (calls the bank
// answered 429: 0). Run it with
//
//	go test -run '^$' -bench RiverRound -benchtime 1x -timeout 60m
func BenchmarkRiverRound(b *testing.B) {
	n := 2_000
	if v, err := strconv.Atoi(os.Getenv("RIVERREFRESH_BENCH_ACCOUNTS")); err == nil && v > 0 {
		n = v
	}
	ctx := b.Context()
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(b)), emulator.WithClock(clock.Now), emulator.WithLimits(refreshbench.Limits))
	defer srv.Close()
	tpp := func(name string) (*clientSetup, []*sca.Session) {
		creds, err := srv.NewTPP(name)
		if err != nil {
			b.Fatal(err)
		}
		seeded, err := srv.Control().Seed(ctx, creds.Certificate, refreshbench.Seed(n/2, 2, 0, 8, clock.Now().Add(-2*time.Hour)))
		if err != nil {
			b.Fatal(err)
		}
		var ss []*sca.Session
		for _, cu := range seeded.Customers {
			ss = append(ss, refreshbench.Remembered(b, cu))
		}
		return &clientSetup{srv: srv, creds: creds, clock: clock}, ss
	}
	// The baseline: the in-process refresher, budget in memory.
	mem, memSessions := tpp("Memory TPP")
	svc := mem.service(b, store.NewMemoryStore())
	r, err := refresh.New(svc, refresh.WithWorkers(4)) // as many as the engines' together
	if err != nil {
		b.Fatal(err)
	}
	var jobs []refresh.Job
	for _, s := range memSessions {
		for _, id := range s.AccountIDs {
			jobs = append(jobs, newJob(b, s, id, false))
		}
	}
	start := time.Now()
	for res, err := range r.Run(ctx, slices.Values(jobs)) {
		if err != nil || res.Outcome != refresh.Done {
			b.Fatalf("%v: %v %v", res, err, res.Err)
		}
	}
	memRate := float64(len(jobs)) / time.Since(start).Seconds()

	// Two River engines over PostgreSQL.
	rv, rvSessions := tpp("River TPP")
	schema := pgtest.CreateSchema(b)
	shared := newStore(b, newPool(b), schema)
	for i, s := range rvSessions {
		if err := sca.SaveSession(ctx, shared, "user-"+strconv.Itoa(i), s); err != nil {
			b.Fatal(err)
		}
	}
	var mu sync.Mutex
	done := map[string]int{}
	over := 0
	handle := func(_ context.Context, _ string, res refresh.Result) {
		mu.Lock()
		defer mu.Unlock()
		if res.Outcome == refresh.Done {
			done[res.Job.AccountID()]++
		}
		if st, _ := statusOf(res.Err); st == http.StatusTooManyRequests {
			over++
		}
	}
	var engines []*riverrefresh.Engine
	for range 2 {
		pool := newPool(b)
		st := newStore(b, pool, schema)
		e, err := riverrefresh.New(riverrefresh.Config{Pool: pool, Schema: schema, Work: true, Handle: handle,
			Banks: map[string]riverrefresh.Bank{"bench": {Service: rv.service(b, st), Sessions: st, Workers: 2}}})
		if err != nil {
			b.Fatal(err)
		}
		engines = append(engines, e)
	}
	if err := engines[0].Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := engines[0].Enqueue(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start = time.Now()
	for _, e := range engines {
		if err := e.Start(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for {
		mu.Lock()
		k := len(done)
		mu.Unlock()
		if k == n {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	riverRate := float64(n) / time.Since(start).Seconds()
	b.StopTimer()
	for _, e := range engines {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = e.Stop(stop)
		cancel()
	}
	mu.Lock()
	twice := 0
	for _, k := range done {
		if k > 1 {
			twice++
		}
	}
	mu.Unlock()
	b.ReportMetric(memRate, "memory-accounts/s")
	b.ReportMetric(riverRate, "river-accounts/s")
	b.ReportMetric(riverRate/memRate, "river/memory")
	b.ReportMetric(float64(twice), "refreshed-twice")
	b.ReportMetric(float64(over), "over-budget")
}

// clientSetup makes clients of one TPP on the emulator.
type clientSetup struct {
	srv   *emulator.Server
	creds *signing.Credentials
	clock *testtpp.Clock
}

// service returns a Service on a new client of the TPP with its budget in
// st.
func (c *clientSetup) service(b *testing.B, st store.Store) *accounts.Service {
	cl, err := client.New(c.srv.URL, c.creds, client.WithHTTPClient(c.srv.Client()), client.WithClock(c.clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(st))
	if err != nil {
		b.Fatal(err)
	}
	svc, err := accounts.New(cl)
	if err != nil {
		b.Fatal(err)
	}
	return svc
}

// statusOf returns the bank's HTTP status in err, if any.
func statusOf(err error) (int, bool) {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.StatusCode, true
	}
	return 0, false
}
