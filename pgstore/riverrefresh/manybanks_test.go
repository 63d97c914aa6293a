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
	// jobTimeout is the engines' JobTimeout (0: the default).
	jobTimeout time.Duration
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
	// gaveUp counts the held requests whose context ended first.
	gaveUp atomic.Int64
	hold   atomic.Pointer[chan struct{}]
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
			w.gaveUp.Add(1)
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, req.Context().Err()
		}
	}
	return w.next.RoundTrip(req)
}

// newFleet starts n banks with customers customers of 2 accounts each
// at every bank but the first, which has first customers, the stores of
// all banks on one pool of storeConns connections; opts are added to
// every bank's client options.
func newFleet(tb testing.TB, n, customers, first int, storeConns int32, opts ...client.Option) *fleet {
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
	for i, h := range hosts {
		seed := refreshbench.Seed(customers, 2, 0, 2, f.clock.Now().Add(-2*time.Hour))
		if i == 0 {
			seed = refreshbench.Seed(first, 2, 0, 2, f.clock.Now().Add(-2*time.Hour))
		}
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
		cl, err := client.New(b.srv.URL, creds, append([]client.Option{client.WithHTTPClient(&http.Client{Transport: b.wire}),
			client.WithClock(f.clock.Now), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
			client.WithStore(b.st)}, opts...)...)
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
		JobTimeout: f.jobTimeout, RescueAfter: 2 * f.jobTimeout, Banks: map[string]riverrefresh.Bank{}}
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
	// The held requests wait as long as the test: no attempt gives up
	// (and frees its slot) however slow the machine.
	f := newFleet(t, 4, 4, 4, 3, client.WithResponseTimeout(10*time.Minute), client.WithCallTimeout(10*time.Minute))
	f.jobTimeout = 10 * time.Minute
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
	case <-time.After(5 * time.Minute):
		t.Fatalf("the other banks refreshed %d of %d accounts while bank00 held its requests", res.restCount(), others)
	}
	assert.Zero(t, res.count(stuck.name), "bank00 answered nothing yet")
	assert.Zero(t, stuck.wire.gaveUp.Load(), "bank00's first requests still held: none gave up to free its slot")
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

// BenchmarkManyBanks is issue 37's "many banks": one River engine with 40
// banks, each its own emulator (a MultiBank), client, store schema and
// queue with its worker limit (2 each; the stores of all banks share one
// pool of 12 connections, as River's tables another). Every bank answers
// after 100 ms (RIVERREFRESH_MANYBANKS_LATENCY; the emulator's SlowBank,
// a fixed delay). The 39 other banks have 150 accounts each
// (RIVERREFRESH_MANYBANKS_ACCOUNTS: 2 per customer), bank00 three times
// as many, so that it is busy all along.
//
// One round of every bank runs, and the two sides alternate in windows of
// 2 s (RIVERREFRESH_MANYBANKS_WINDOW) within it: normal, slow, normal,
// slow...; in a slow window bank00 answers 10 times slower (1 s). Each
// window counts the 39 other banks' accounts refreshed in it, from the
// second window until 90% of their accounts are (the start and the tail,
// where banks run out of jobs, left out). Alternating every few seconds,
// the machine's load, which drifts over tens of seconds, falls on both
// sides alike. It reports normal-accounts/s and slow-accounts/s (the 39
// banks', over all the windows of the side), slow/normal (the median of
// each slow window's rate over the mean of its two normal neighbours';
// the goal is at least 0.95), slow/normal-total (the ratio of the two
// rates), bank00's own accounts/s on each side, and the load average
// (Linux), at the start and at the end. Run it with
//
//	go test -run '^$' -bench ManyBanks -benchtime 1x -count 3 -timeout 30m
func BenchmarkManyBanks(b *testing.B) {
	const banks, workers = 40, 2
	accts := envInt(b, "RIVERREFRESH_MANYBANKS_ACCOUNTS", 150)
	latency := 100 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("RIVERREFRESH_MANYBANKS_LATENCY")); err == nil && d > 0 {
		latency = d
	}
	window := 2 * time.Second
	if d, err := time.ParseDuration(os.Getenv("RIVERREFRESH_MANYBANKS_WINDOW")); err == nil && d > 0 {
		window = d
	}
	f := newFleet(b, banks, (accts+1)/2, 3*((accts+1)/2), 12)
	slowBank := f.banks[0]
	others := 0
	for _, bk := range f.banks[1:] {
		others += len(bk.ids)
	}
	for _, bk := range f.banks {
		bk.srv.Control().SlowBank(emulator.Latency{P50: latency}, 48*time.Hour)
	}
	setSlow := func(slow bool) {
		lat := latency
		if slow {
			lat = 10 * latency
		}
		slowBank.srv.Control().EndOutages()
		slowBank.srv.Control().SlowBank(emulator.Latency{P50: lat}, 48*time.Hour)
	}
	res := newTally(slowBank.name, others)
	e := f.engine(b, workers, res.handle)
	if err := e.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	f.enqueue(b, e)
	load0, _ := loadAverage()
	b.ResetTimer()
	start := time.Now()
	if err := e.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = e.Stop(stop)
	}()
	// rates[i] is the 39 banks' accounts/s in window i, own[i] bank00's;
	// even windows are normal, odd ones slow.
	var rates, own []float64
	last, lastOwn := res.restCount(), res.count(slowBank.name)
	for i := 0; last < others*9/10; i++ {
		slow := i%2 == 1
		setSlow(slow)
		began := time.Now()
		time.Sleep(window)
		now, nowOwn := res.restCount(), res.count(slowBank.name)
		secs := time.Since(began).Seconds()
		if i > 0 { // the first window has the engine's start
			rates = append(rates, float64(now-last)/secs)
			own = append(own, float64(nowOwn-lastOwn)/secs)
		} else {
			rates, own = append(rates, -1), append(own, -1)
		}
		last, lastOwn = now, nowOwn
		if time.Since(start) > 30*time.Minute {
			b.Fatalf("the 39 banks refreshed %d of %d accounts in 30 minutes", now, others)
		}
	}
	b.StopTimer()
	load1, _ := loadAverage()
	res.mu.Lock()
	failed := len(res.other)
	res.mu.Unlock()
	if failed > 0 {
		b.Fatalf("%d jobs did not refresh their account", failed)
	}
	var ratios []float64
	var sum, ownSum [2]float64
	var n [2]int
	for i, r := range rates {
		if r < 0 {
			continue
		}
		sum[i%2] += r
		ownSum[i%2] += own[i]
		n[i%2]++
		if i%2 == 1 && i+1 < len(rates) && rates[i-1] >= 0 {
			if ref := (rates[i-1] + rates[i+1]) / 2; ref > 0 {
				ratios = append(ratios, r/ref)
			}
		}
	}
	if len(ratios) == 0 || n[0] == 0 || n[1] == 0 {
		b.Fatalf("too few windows (%d): more accounts or shorter windows", len(rates))
	}
	normal, slow := sum[0]/float64(n[0]), sum[1]/float64(n[1])
	b.Logf("%d windows of %v; 39 banks: normal %.1f accounts/s, slow %.1f; slow/normal %.3f (median of %d, range %.3f to %.3f); bank00 %.2f accounts/s normal, %.2f slow; load %.1f to %.1f",
		len(rates)-1, window, normal, slow, median(slices.Clone(ratios)), len(ratios), slices.Min(ratios), slices.Max(ratios),
		ownSum[0]/float64(n[0]), ownSum[1]/float64(n[1]), load0, load1)
	b.ReportMetric(normal, "normal-accounts/s")
	b.ReportMetric(slow, "slow-accounts/s")
	b.ReportMetric(median(slices.Clone(ratios)), "slow/normal")
	b.ReportMetric(slow/normal, "slow/normal-total")
	b.ReportMetric(ownSum[0]/float64(n[0]), "bank00-normal-accounts/s")
	b.ReportMetric(ownSum[1]/float64(n[1]), "bank00-slow-accounts/s")
	if load0 > 0 {
		b.ReportMetric(load0, "loadavg-start")
		b.ReportMetric(load1, "loadavg-end")
	}
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
