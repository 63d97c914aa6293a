package riverrefresh_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// countingTransport counts the requests that reach the bank, per path.
type countingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[req.URL.Path]++
	c.mu.Unlock()
	return c.next.RoundTrip(req)
}

// world is an emulator with seeded customers whose sessions are saved in
// a PostgreSQL store, and a schema for River's tables and the store.
type world struct {
	srv    *emulator.Server
	clock  *testtpp.Clock
	creds  *signing.Credentials
	schema string
	bank   *countingTransport
	ids    []string // every account and card account id
	psus   []string // every PSU-ID
	seeded emulator.SeedResult
	store  *pgstore.Store
	// options are the bank's refresh options in every engine.
	options []refresh.Option
	// workers is the bank's Workers in every engine (0: 3).
	workers int
	// storeOpts are the options of every engine's store.
	storeOpts []pgstore.Option
}

func newWorld(t *testing.T, customers int) *world {
	t.Helper()
	w := &world{schema: pgtest.CreateSchema(t), clock: testtpp.NewClock(time.Now())}
	w.srv = emulator.NewServer(emulator.WithTPPKey(testtpp.Key(t)), emulator.WithClock(w.clock.Now),
		emulator.WithLimits(refreshbench.Limits))
	t.Cleanup(w.srv.Close)
	var err error
	w.creds, err = w.srv.NewTPP("River test")
	require.NoError(t, err)
	seeded, err := w.srv.Control().Seed(t.Context(), w.creds.Certificate, refreshbench.Seed(customers, 2, 1, 2, w.clock.Now().Add(-time.Hour)))
	require.NoError(t, err)
	w.bank = &countingTransport{next: w.srv.Client().Transport, n: map[string]int{}}
	st := newStore(t, newPool(t), w.schema)
	w.seeded, w.store = seeded, st
	for i, cu := range seeded.Customers {
		s := refreshbench.Remembered(t, cu)
		require.NoError(t, sca.SaveSession(t.Context(), st, "user-"+string(rune('a'+i%26))+strings.Repeat("x", i/26), s))
		w.ids = append(append(w.ids, s.AccountIDs...), s.CardAccountIDs...)
		w.psus = append(w.psus, s.PSUID)
	}
	return w
}

// svc returns a Service on a client of the world's bank and store.
func (w *world) svc(t *testing.T) *accounts.Service {
	t.Helper()
	c, err := client.New(w.srv.URL, w.creds, client.WithHTTPClient(w.srv.Client()), client.WithClock(w.clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(w.store))
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return svc
}

// engine is a replica: an engine on its own pool, client and store.
func (w *world) engine(t *testing.T, cfg riverrefresh.Config, opts ...client.Option) *riverrefresh.Engine {
	t.Helper()
	return w.engineOn(t, cfg, nil, opts...)
}

// engineOn is engine with sessions as the bank's Sessions store (nil:
// the replica's own store).
func (w *world) engineOn(t *testing.T, cfg riverrefresh.Config, sessions store.Store, opts ...client.Option) *riverrefresh.Engine {
	t.Helper()
	return w.engineOnPool(t, cfg, newPool(t), sessions, opts...)
}

// engineOnPool is engineOn with pool as the pool of River's tables and
// of the replica's own store.
func (w *world) engineOnPool(t *testing.T, cfg riverrefresh.Config, pool *pgxpool.Pool, sessions store.Store, opts ...client.Option) *riverrefresh.Engine {
	t.Helper()
	return w.engineOnPools(t, cfg, pool, pool, sessions, opts...)
}

// engineOnPools is engineOnPool with River's tables on pool and the
// replica's own store on storePool.
func (w *world) engineOnPools(t *testing.T, cfg riverrefresh.Config, pool, storePool *pgxpool.Pool, sessions store.Store, opts ...client.Option) *riverrefresh.Engine {
	t.Helper()
	st := newStore(t, storePool, w.schema, w.storeOpts...)
	c, err := client.New(w.srv.URL, w.creds, append([]client.Option{client.WithHTTPClient(&http.Client{Transport: w.bank}),
		client.WithClock(w.clock.Now), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
		client.WithStore(st)}, opts...)...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	cfg.Pool, cfg.Schema = pool, w.schema
	if sessions == nil {
		sessions = st
	}
	workers := w.workers
	if workers == 0 {
		workers = 3
	}
	cfg.Banks = map[string]riverrefresh.Bank{"testbank": {Service: svc, Sessions: sessions, Workers: workers, Options: w.options}}
	e, err := riverrefresh.New(cfg)
	require.NoError(t, err)
	return e
}

// results collects what the engines' handlers receive.
type results struct {
	mu    sync.Mutex
	done  map[string]int
	other []refresh.Result
	total atomic.Int64
}

// allDone reports, for require.Eventually, whether n accounts have
// been refreshed.
func (r *results) allDone(n int) func() bool {
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.done) == n
	}
}

func (r *results) handle(_ context.Context, _ string, res refresh.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total.Add(1)
	if res.Outcome == refresh.Done {
		r.done[res.Job.AccountID()]++
		return
	}
	r.other = append(r.other, res)
}

// Two engines (replicas) over one database, both scheduling and working
// the same round: each account is refreshed exactly once, no call goes
// over the budget, and River's tables hold no account id or PSU-ID.
func TestTwoEnginesOneRound(t *testing.T) {
	w := newWorld(t, 15)
	res := &results{done: map[string]int{}}
	cfg := riverrefresh.Config{Work: true, Schedule: true, Handle: res.handle}
	a, b := w.engine(t, cfg), w.engine(t, cfg)
	require.NoError(t, a.Migrate(t.Context()))
	ctx := t.Context()
	start(t, a, b)
	// Both enqueue the round again, besides their scheduler: unique jobs.
	_, err := a.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	_, err = b.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Eventually(t, res.allDone(len(w.ids)), 60*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // let a duplicate show, if any
	res.mu.Lock()
	for id, n := range res.done {
		assert.Equal(t, 1, n, "refreshes of one account: %s", id[:4])
	}
	assert.Empty(t, res.other)
	res.mu.Unlock()
	// Calls over the budget: none. Each account got its balances and one
	// transactions page, once.
	w.bank.mu.Lock()
	for path, n := range w.bank.n {
		assert.LessOrEqual(t, n, budget.DefaultLimit, path)
		assert.Equal(t, 1, n, "calls of one endpoint of one account in the round")
	}
	assert.Len(t, w.bank.n, 2*len(w.ids))
	w.bank.mu.Unlock()

	// River's tables name no account and no PSU.
	var dump string
	err = a.Pool().QueryRow(ctx, "SELECT coalesce(string_agg(args::text || coalesce(errors::text, ''), ' '), '') FROM "+
		w.schema+".river_job").Scan(&dump)
	require.NoError(t, err)
	require.NotEmpty(t, dump)
	for _, id := range w.ids {
		assert.NotContains(t, dump, id)
	}
	for _, p := range w.psus {
		assert.NotContains(t, dump, p)
	}
}

// A scheduler-only engine enqueues the round on its own (River's periodic
// job, run at start by the leader), and a worker-only engine refreshes
// every account.
func TestSchedulerEnqueuesTheRound(t *testing.T) {
	w := newWorld(t, 5)
	res := &results{done: map[string]int{}}
	sched := w.engine(t, riverrefresh.Config{Schedule: true})
	worker := w.engine(t, riverrefresh.Config{Work: true, Handle: res.handle})
	ctx := t.Context()
	require.NoError(t, sched.Migrate(ctx))
	start(t, sched, worker)
	require.Eventually(t, res.allDone(len(w.ids)), 60*time.Second, 50*time.Millisecond)
}

// An engine that schedules has each bank's schedule job inserted when
// Start returns: the round starts without waiting for River's leader to
// start its periodic-job enqueuer (a random pause of up to a second
// after the election, then the enqueuer's own start; 2.1 s in one
// logged round). Started twice, or with another scheduler, the job is
// still one per bank (unique while it waits or runs).
func TestStartSchedulesAtOnce(t *testing.T) {
	w := newWorld(t, 3)
	sched := w.engine(t, riverrefresh.Config{Schedule: true})
	other := w.engine(t, riverrefresh.Config{Schedule: true})
	ctx := t.Context()
	require.NoError(t, sched.Migrate(ctx))
	scheduleJobs := func() int {
		var n int
		require.NoError(t, sched.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+
			".river_job WHERE kind = 'psd2_refresh_schedule'").Scan(&n))
		return n
	}
	start(t, sched)
	assert.Equal(t, 1, scheduleJobs(), "schedule jobs when Start returned")
	start(t, other)
	var n int
	require.NoError(t, sched.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+
		".river_job WHERE kind = 'psd2_refresh_schedule' AND state IN ('available', 'pending', 'retryable', 'running', 'scheduled')").Scan(&n))
	assert.LessOrEqual(t, n, 1, "schedule jobs waiting or running after a second scheduler's start")
	require.Eventually(t, func() bool {
		var n int
		err := sched.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh'").Scan(&n)
		return err == nil && n == len(w.ids)
	}, 30*time.Second, 50*time.Millisecond, "the round enqueued")
}

// The schedule job is bounded by ScheduleEvery, not by JobTimeout (one
// account's refresh): a JobTimeout too short for a round's inserts
// still lets the scheduler enqueue the round.
func TestScheduleOutlivesJobTimeout(t *testing.T) {
	w := newWorld(t, 3)
	sched := w.engine(t, riverrefresh.Config{Schedule: true, JobTimeout: time.Nanosecond})
	ctx := t.Context()
	require.NoError(t, sched.Migrate(ctx))
	start(t, sched)
	var n int
	require.Eventually(t, func() bool {
		err := sched.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh'").Scan(&n)
		return err == nil && n == len(w.ids)
	}, 30*time.Second, 100*time.Millisecond, "jobs enqueued: %d of %d", n, len(w.ids))
}

// A worker-only engine that River elects leader (it started first)
// inserts the schedule's periodic job, and the scheduler-only engine
// started after it runs it: the round is enqueued and refreshed. River
// runs periodic jobs on its leader only; an engine that declared none
// left every round unscheduled while it led.
func TestWorkerLeaderStillSchedules(t *testing.T) {
	w := newWorld(t, 3)
	res := &results{done: map[string]int{}}
	worker := w.engine(t, riverrefresh.Config{Work: true, Handle: res.handle})
	ctx := t.Context()
	require.NoError(t, worker.Migrate(ctx))
	start(t, worker)
	var leaders int
	require.Eventually(t, func() bool {
		err := worker.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_leader").Scan(&leaders)
		return err == nil && leaders == 1
	}, 30*time.Second, 20*time.Millisecond, "the worker-only engine is elected")
	// Its periodic job is inserted before any scheduler starts (which
	// would insert one of its own, TestStartSchedulesAtOnce).
	require.Eventually(t, func() bool {
		var n int
		err := worker.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh_schedule'").Scan(&n)
		return err == nil && n == 1
	}, 30*time.Second, 20*time.Millisecond, "the worker-only leader inserts the schedule job")
	sched := w.engine(t, riverrefresh.Config{Schedule: true})
	start(t, sched)
	require.Eventually(t, res.allDone(len(w.ids)), 30*time.Second, 50*time.Millisecond, "every account refreshed")
	// The schedule jobs waiting for a scheduler are one per bank.
	var waiting int
	require.NoError(t, worker.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+
		".river_job WHERE queue = 'psd2_refresh_schedule' AND kind = 'psd2_refresh_schedule' AND state IN ('available', 'scheduled', 'retryable')").Scan(&waiting))
	assert.LessOrEqual(t, waiting, 1)
}
