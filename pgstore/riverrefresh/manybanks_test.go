package riverrefresh_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// fleet is many banks, each its own emulator (one emulator.MultiBank:
// a listener, a certificate and a budget per bank, one TPP certificate
// trusted by all), its own client and its own store schema (its sessions
// and its budget), all the stores on one pool, as one TPP process runs
// them; River's tables are in a schema of their own, on a pool of their
// own.
type fleet struct {
	mb        *emulator.MultiBank
	clock     *testtpp.Clock
	schema    string // River's
	riverPool *pgxpool.Pool
	banks     []*fleetBank
}

// fleetBank is one bank of a fleet.
type fleetBank struct {
	name string
	srv  *emulator.Server
	wire *bankWire
	svc  *accounts.Service
	st   *pgstore.Store
	ids  []string // its accounts
}

// bankWire is a bank's transport: it counts the requests and, while
// hold is set, holds each until hold is closed (or the request's context
// ends): a bank that does not answer, for as long as the test says.
type bankWire struct {
	next http.RoundTripper
	sent atomic.Int64
	held atomic.Int64
	hold atomic.Pointer[chan struct{}]
}

func (w *bankWire) RoundTrip(req *http.Request) (*http.Response, error) {
	w.sent.Add(1)
	if ch := w.hold.Load(); ch != nil {
		w.held.Add(1)
		select {
		case <-*ch:
			w.held.Add(-1)
		case <-req.Context().Done():
			w.held.Add(-1)
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, req.Context().Err()
		}
	}
	return w.next.RoundTrip(req)
}

// newFleet starts n banks with customers customers of 2 accounts each
// at every bank, the stores of all banks on one pool of storeConns
// connections.
func newFleet(tb testing.TB, n, customers int, storeConns int32) *fleet {
	tb.Helper()
	ctx := context.Background()
	f := &fleet{clock: testtpp.NewClock(time.Now()), schema: pgtest.CreateSchema(tb), riverPool: newPool(tb)}
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("bank%02d.localhost", i)
	}
	var err error
	f.mb, err = emulator.NewMultiBank(hosts, emulator.WithTPPKey(testtpp.Key(tb)), emulator.WithClock(f.clock.Now),
		emulator.WithLimits(refreshbench.Limits))
	require.NoError(tb, err)
	tb.Cleanup(f.mb.Close)
	creds, err := f.mb.NewTPP("Many banks TPP")
	require.NoError(tb, err)
	storePool := pgtest.Pool(tb, storeConns)
	seed := refreshbench.Seed(customers, 2, 0, 2, f.clock.Now().Add(-2*time.Hour))
	for _, h := range hosts {
		name, _, _ := strings.Cut(h, ".")
		b := &fleetBank{name: name, srv: f.mb.Bank(h)}
		b.wire = &bankWire{next: f.mb.Client().Transport}
		seeded, err := b.srv.Control().Seed(ctx, creds.Certificate, seed)
		require.NoError(tb, err)
		b.st = newStore(tb, storePool, pgtest.CreateSchema(tb))
		for i, cu := range seeded.Customers {
			s := refreshbench.Remembered(tb, cu)
			require.NoError(tb, sca.SaveSession(ctx, b.st, "user-"+strconv.Itoa(i), s))
			b.ids = append(b.ids, s.AccountIDs...)
		}
		cl, err := client.New(b.srv.URL, creds, client.WithHTTPClient(&http.Client{Transport: b.wire}),
			client.WithClock(f.clock.Now), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
			client.WithStore(b.st))
		require.NoError(tb, err)
		b.svc, err = accounts.New(cl)
		require.NoError(tb, err)
		f.banks = append(f.banks, b)
	}
	return f
}

// engine returns an engine working every bank of the fleet, workers jobs
// of each at once, its results to handle.
func (f *fleet) engine(tb testing.TB, workers int, handle func(context.Context, string, refresh.Result)) *riverrefresh.Engine {
	tb.Helper()
	cfg := riverrefresh.Config{Pool: f.riverPool, Schema: f.schema, Work: true, Handle: handle,
		Banks: map[string]riverrefresh.Bank{}}
	for _, b := range f.banks {
		cfg.Banks[b.name] = riverrefresh.Bank{Service: b.svc, Sessions: b.st, Workers: workers}
	}
	e, err := riverrefresh.New(cfg)
	require.NoError(tb, err)
	return e
}

// enqueue enqueues the current round of every bank.
func (f *fleet) enqueue(tb testing.TB, e *riverrefresh.Engine) {
	tb.Helper()
	for _, b := range f.banks {
		k, err := e.Enqueue(context.Background(), b.name)
		require.NoError(tb, err)
		require.Equal(tb, len(b.ids), k, "jobs enqueued at %s", b.name)
	}
}

// tally counts the results of the banks' jobs.
type tally struct {
	mu    sync.Mutex
	done  map[string]map[string]int // bank -> account -> refreshes
	other []refresh.Result
	// watch is the bank whose refreshes are not counted in rest; rest
	// counts the first refreshes of the other banks' accounts, and full
	// is closed once it reaches want.
	watch string
	rest  int
	want  int
	full  chan struct{}
	at    time.Time // when full closed
	// times are the times of the rest's refreshes, in order.
	times []time.Time
}

func newTally(watch string, want int) *tally {
	return &tally{done: map[string]map[string]int{}, watch: watch, want: want, full: make(chan struct{})}
}

func (t *tally) handle(_ context.Context, bank string, res refresh.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if res.Outcome != refresh.Done {
		t.other = append(t.other, res)
		return
	}
	if t.done[bank] == nil {
		t.done[bank] = map[string]int{}
	}
	t.done[bank][res.Job.AccountID()]++
	if bank != t.watch && t.done[bank][res.Job.AccountID()] == 1 {
		t.rest++
		t.times = append(t.times, time.Now())
		if t.rest == t.want {
			t.at = time.Now()
			close(t.full)
		}
	}
}

// restCount returns the other banks' refreshed accounts.
func (t *tally) restCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rest
}

// count returns the refreshed accounts of bank.
func (t *tally) count(bank string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.done[bank])
}

// A bank that does not answer holds only its own queue's worker slots:
// while every request to bank00 is held (its 4 workers each waiting on
// the bank, more than the 3 connections of the pool all the banks'
// stores share), every account of the 3 other banks is refreshed, once;
// once bank00 answers, its accounts are too. A budget reservation or a
// claim that kept a connection across the bank's call, a worker pool
// shared by the banks or a lock held over a call would leave the other
// banks waiting. (BenchmarkManyBanks measures the throughput of 39 banks
// beside a slow one.)
func TestStuckBankLeavesOthersRunning(t *testing.T) {
	f := newFleet(t, 4, 4, 3)
	stuck := f.banks[0]
	release := make(chan struct{})
	stuck.wire.hold.Store(&release)
	others := 0
	for _, b := range f.banks[1:] {
		others += len(b.ids)
	}
	res := newTally(stuck.name, others)
	e := f.engine(t, 4, res.handle)
	require.NoError(t, e.Migrate(t.Context()))
	f.enqueue(t, e)
	start(t, e)
	require.Eventually(t, func() bool { return stuck.wire.held.Load() == 4 }, time.Minute, 5*time.Millisecond,
		"bank00's 4 workers each wait on the bank")
	select {
	case <-res.full:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the other banks refreshed %d of %d accounts while bank00 held its requests", res.restCount(), others)
	}
	assert.Zero(t, res.count(stuck.name), "bank00 answered nothing yet")
	assert.Equal(t, int64(4), stuck.wire.held.Load(), "bank00's workers still wait on the bank")
	close(release)
	require.Eventually(t, func() bool { return res.count(stuck.name) == len(stuck.ids) }, 2*time.Minute,
		10*time.Millisecond, "bank00's accounts refreshed once it answers")
	res.mu.Lock()
	defer res.mu.Unlock()
	for _, b := range f.banks {
		assert.Len(t, res.done[b.name], len(b.ids), b.name)
		for id, k := range res.done[b.name] {
			assert.Equal(t, 1, k, "refreshes of an account of %s: %s", b.name, id[:4])
		}
	}
	assert.Empty(t, res.other)
}

// manyBanksSide is one side of BenchmarkManyBanks: one round of every
// bank, bank00 slow or not.
type manyBanksSide struct {
	slow bool
	rate float64 // the other banks' accounts per second
	secs float64 // until their last account
	// mid is their accounts per second from the tenth of their accounts
	// refreshed to the ninth tenth (the start and the tail left out).
	mid float64
	// slowDone is bank00's accounts refreshed by then.
	slowDone int
	load     float64 // the load average at the side's end
}

// BenchmarkManyBanks is issue 37's "many banks": one River engine with 40
// banks, each its own emulator (a MultiBank), client, store schema and
// queue with its worker limit (2 each; the stores of all banks share one
// pool of 12 connections, as River's tables another), and 20 accounts at
// each bank (RIVERREFRESH_MANYBANKS_ACCOUNTS: 2 per customer). Every bank
// answers after 100 ms (RIVERREFRESH_MANYBANKS_LATENCY; the emulator's
// SlowBank, a fixed delay). A side is one round of every bank, on a new
// engine, with the clock a day on (a new round and budget); the sides
// alternate, normal, slow, slow, normal and so on
// (RIVERREFRESH_MANYBANKS_PAIRS pairs, 3 by default): on a slow side
// bank00 answers 10 times slower (1 s). Each side measures the 39 other
// banks' throughput, their accounts over the time from the engine's start
// to their last account refreshed (bank00 is still refreshing then, on a
// slow side). It reports normal-accounts/s and slow-accounts/s (the 39
// banks', medians over the sides), slow/normal (the median of the pairs'
// ratios; the goal is at least 0.95), slow/normal-min and -max, bank00's
// accounts by then on each side and the load average (Linux). Run it with
//
//	go test -run '^$' -bench ManyBanks -benchtime 1x -count 3 -timeout 30m
func BenchmarkManyBanks(b *testing.B) {
	const banks, workers = 40, 2
	accts := envInt("RIVERREFRESH_MANYBANKS_ACCOUNTS", 20)
	pairs := envInt("RIVERREFRESH_MANYBANKS_PAIRS", 3)
	latency := 100 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("RIVERREFRESH_MANYBANKS_LATENCY")); err == nil && d > 0 {
		latency = d
	}
	f := newFleet(b, banks, (accts+1)/2, 12)
	slowBank := f.banks[0]
	others := 0
	for _, bk := range f.banks[1:] {
		others += len(bk.ids)
	}
	e0 := f.engine(b, workers, nil)
	if err := e0.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	side := func(slow bool) manyBanksSide {
		f.clock.Add(24 * time.Hour) // a new round, a new day's budget
		for _, bk := range f.banks {
			lat := latency
			if slow && bk == slowBank {
				lat = 10 * latency
			}
			bk.srv.Control().EndOutages()
			bk.srv.Control().SlowBank(emulator.Latency{P50: lat}, 48*time.Hour)
		}
		if _, err := f.riverPool.Exec(b.Context(), "TRUNCATE "+pgx.Identifier{f.schema, "river_job"}.Sanitize()); err != nil {
			b.Fatal(err)
		}
		res := newTally(slowBank.name, others)
		e := f.engine(b, workers, res.handle)
		f.enqueue(b, e)
		began := time.Now()
		if err := e.Start(b.Context()); err != nil {
			b.Fatal(err)
		}
		select {
		case <-res.full:
		case <-time.After(10 * time.Minute):
			b.Fatalf("the 39 banks refreshed %d of %d accounts in 10 minutes", res.restCount(), others)
		}
		res.mu.Lock()
		s := manyBanksSide{slow: slow, secs: res.at.Sub(began).Seconds(), slowDone: len(res.done[slowBank.name])}
		failed := len(res.other)
		lo, hi := res.times[others/10], res.times[others*9/10]
		res.mu.Unlock()
		if d := hi.Sub(lo).Seconds(); d > 0 {
			s.mid = float64(others*9/10-others/10) / d
		}
		s.rate = float64(others) / s.secs
		s.load, _ = loadAverage()
		stop, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = e.Stop(stop)
		cancel()
		if failed > 0 {
			b.Fatalf("%d jobs did not refresh their account", failed)
		}
		return s
	}
	b.ResetTimer()
	var sides []manyBanksSide
	var ratios, midRatios []float64
	for p := range pairs {
		// normal, slow, slow, normal, ...: neither side always first.
		order := []bool{false, true}
		if p%2 == 1 {
			order = []bool{true, false}
		}
		var pair [2]manyBanksSide
		for _, slow := range order {
			s := side(slow)
			pair[boolIndex(slow)] = s
			sides = append(sides, s)
			b.Logf("pair %d %s: 39 banks %.1f accounts/s (%d in %.2fs; %.1f/s from the 10th to the 90th percentile), bank00 %d of %d by then, load %.1f",
				p+1, map[bool]string{false: "normal", true: "slow"}[slow], s.rate, others, s.secs, s.mid, s.slowDone,
				len(slowBank.ids), s.load)
		}
		ratios = append(ratios, pair[1].rate/pair[0].rate)
		midRatios = append(midRatios, pair[1].mid/pair[0].mid)
	}
	b.StopTimer()
	var normal, slow, slowDone, loads []float64
	for _, s := range sides {
		if s.slow {
			slow = append(slow, s.rate)
			slowDone = append(slowDone, float64(s.slowDone))
		} else {
			normal = append(normal, s.rate)
		}
		loads = append(loads, s.load)
	}
	b.ReportMetric(median(normal), "normal-accounts/s")
	b.ReportMetric(median(slow), "slow-accounts/s")
	b.ReportMetric(median(slices.Clone(ratios)), "slow/normal")
	b.ReportMetric(slices.Min(ratios), "slow/normal-min")
	b.ReportMetric(slices.Max(ratios), "slow/normal-max")
	b.ReportMetric(median(slices.Clone(midRatios)), "slow/normal-p10-p90")
	b.ReportMetric(median(slowDone), "bank00-accounts-on-slow")
	if len(loads) > 0 && loads[0] > 0 {
		b.ReportMetric(median(loads), "loadavg")
	}
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(v bool) int {
	if v {
		return 1
	}
	return 0
}

// envInt is the positive integer in the environment variable name, or
// def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// loadAverage is the machine's load average over the last minute (Linux's
// /proc/loadavg), false where there is none.
func loadAverage() (float64, bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	return v, err == nil
}

// median sorts xs and returns its median: the middle value, or the mean
// of the two middle ones (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 0 {
		return (xs[m-1] + xs[m]) / 2
	}
	return xs[m]
}
