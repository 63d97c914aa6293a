package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/store"
)

// refreshKind is the River kind of riverrefresh's refresh jobs.
var refreshKind = riverrefresh.Args{}.Kind()

// The per-job breakdown: where each job's time goes, on both sides.
//
//   - the job: River's worker's Work, from the worker middleware's call
//     to its return (the session's read, the cursor's read, the refresh,
//     the result's line and cursor); the pgstore baseline's job, from the
//     cursor's read to its write. The memory baseline's refresher (Run)
//     has no per-job hook: its jobs are not timed as a whole.
//   - at the bank: each request the client sent, from the transport's
//     RoundTrip to the answer's headers (TLS, loopback, the emulator's
//     work), summed over the job's requests (timedTransport);
//   - in the store: each store.Store call made for the job (the session,
//     the budget's reserve and record, the breaker's state, the cursor),
//     summed (timedStore);
//   - other: the job less the bank and the store: the SDK's own work
//     (signing, JSON), riverrefresh's and the wait for a CPU on a shared
//     machine.
//   - fetch wait (River only): for each job a worker process starts, the
//     time since a job of that process last ended and freed its slot,
//     freed slots taken in the order they were freed (jobTimer). It is the
//     slot's time in River between two jobs: the executor's end of the
//     job, the producer's fetch (its cooldown and poll), the fetch query
//     and the dispatch; or, with jobs fetched ahead
//     (riverrefresh.Config.FetchAhead), the hand-over to a job waiting in
//     the engine. A process's first jobs (no slot freed yet) have
//     none. River's own QueueWaitDuration (attempted at less scheduled
//     at) is left out: every job of a round is scheduled at its start, so
//     it measures the job's place in the queue, not River's cost.
//   - completion (River only): River's JobStatistics.CompleteDuration,
//     from the executor handing the job's result to the batch completer
//     to the end of the batch's UPDATE. The slot is free meanwhile (the
//     completer batches every 50 to 250 ms): it costs the database work,
//     not the slot's time. finalized_at is not used: River sets it to the
//     executor's time, before the UPDATE.
//
// Where a job's context carries a jobClock (a River job, a pgstore
// baseline job) its calls count on it. The memory baseline's Run gives
// its jobs no context of their own: there each call counts on the clock
// of the account it names (the account id in the request's path, the
// account's budget key at the end of the store key); calls that name no
// account (the breaker's state, read once a second) are not counted.

// jobClock adds up one job's time at the bank and in the store.
type jobClock struct{ bank, store atomic.Int64 }

type jobClockKey struct{}

// withJobClock returns ctx carrying a new jobClock, and the clock.
func withJobClock(ctx context.Context) (context.Context, *jobClock) {
	c := &jobClock{}
	return context.WithValue(ctx, jobClockKey{}, c), c
}

// meter finds the jobClock a call counts on: its context's, else (when
// byAccount is set) its account's.
type meter struct {
	// byAccount is the clock of each account's key (budget.Key), made
	// before the run and only read during it.
	byAccount map[string]*jobClock
}

// clock is the clock of a call in ctx naming account key (key returns ""
// when the call names none), or nil.
func (m *meter) clock(ctx context.Context, key func() string) *jobClock {
	if c, ok := ctx.Value(jobClockKey{}).(*jobClock); ok {
		return c
	}
	if m == nil || m.byAccount == nil {
		return nil
	}
	return m.byAccount[key()]
}

// timedTransport times each request, from RoundTrip to the answer's
// headers, on its job's clock.
type timedTransport struct {
	next http.RoundTripper
	m    *meter
}

func (t *timedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	took := time.Since(start)
	if c := t.m.clock(r.Context(), func() string { return accountOfPath(r.URL.Path) }); c != nil {
		c.bank.Add(int64(took))
	}
	return resp, err
}

// accountOfPath is the budget key of the account a request's path names
// (/api/v1/accounts/{id}/..., /api/v1/card-accounts/{id}/...), or "".
func accountOfPath(p string) string {
	for _, c := range []struct {
		prefix string
		card   bool
	}{{"/api/v1/accounts/", false}, {"/api/v1/card-accounts/", true}} {
		if rest, ok := strings.CutPrefix(p, c.prefix); ok {
			id, _, _ := strings.Cut(rest, "/")
			if id == "" {
				return ""
			}
			return budget.Key(id, c.card)
		}
	}
	return ""
}

// timedStore times each call of a store.Store on its job's clock. Keys is
// not timed (no job lists keys).
type timedStore struct {
	store.Store
	m *meter
}

// keyAccount is the last element of a store key: an account's budget key
// in the budget's and the cursors' keys.
func keyAccount(key string) func() string {
	return func() string { return key[strings.LastIndexByte(key, '/')+1:] }
}

func (s *timedStore) time(ctx context.Context, key string, start time.Time) {
	if c := s.m.clock(ctx, keyAccount(key)); c != nil {
		c.store.Add(int64(time.Since(start)))
	}
}

func (s *timedStore) Get(ctx context.Context, key string) ([]byte, error) {
	defer s.time(ctx, key, time.Now())
	return s.Store.Get(ctx, key)
}

func (s *timedStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	defer s.time(ctx, key, time.Now())
	return s.Store.Put(ctx, key, value, ttl)
}

func (s *timedStore) Delete(ctx context.Context, key string) error {
	defer s.time(ctx, key, time.Now())
	return s.Store.Delete(ctx, key)
}

func (s *timedStore) Take(ctx context.Context, key string) ([]byte, error) {
	defer s.time(ctx, key, time.Now())
	return s.Store.Take(ctx, key)
}

func (s *timedStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	defer s.time(ctx, key, time.Now())
	return s.Store.Update(ctx, key, fn)
}

func (s *timedStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return s.Store.Keys(ctx, prefix)
}

// jobTiming is one job's breakdown; a component not measured is -1.
type jobTiming struct {
	ID                          int64 `json:",omitempty"`
	Job, Bank, Store, Gap, Done time.Duration
}

// jobTimer is a River worker middleware that times each refresh job of
// its process (the job, its clock's bank and store, the fetch wait), and
// takes River's completion time of each from the client's completed-job
// events (listen).
type jobTimer struct {
	mu   sync.Mutex
	free []time.Time // when a job ended, freeing its slot, oldest first
	jobs map[int64]*jobTiming
	done map[int64]time.Duration // completion, by job id
}

func newJobTimer() *jobTimer {
	return &jobTimer{jobs: map[int64]*jobTiming{}, done: map[int64]time.Duration{}}
}

// IsMiddleware makes jobTimer a River middleware.
func (t *jobTimer) IsMiddleware() bool { return true }

// Work times a refresh job.
func (t *jobTimer) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if job.Kind != refreshKind {
		return doInner(ctx)
	}
	start := time.Now()
	gap := time.Duration(-1)
	t.mu.Lock()
	if len(t.free) > 0 {
		gap = start.Sub(t.free[0])
		t.free = t.free[1:]
	}
	t.mu.Unlock()
	jctx, c := withJobClock(ctx)
	err := doInner(jctx)
	end := time.Now()
	t.mu.Lock()
	t.free = append(t.free, end)
	t.jobs[job.ID] = &jobTiming{ID: job.ID, Job: end.Sub(start), Bank: time.Duration(c.bank.Load()),
		Store: time.Duration(c.store.Load()), Gap: gap, Done: -1}
	t.mu.Unlock()
	return err
}

// listen keeps River's completion time of each refresh job the client
// completes, until the client stops (River closes the channel); the
// returned channel is closed then.
func (t *jobTimer) listen(c *river.Client[pgx.Tx]) <-chan struct{} {
	events, _ := c.SubscribeConfig(&river.SubscribeConfig{Kinds: []river.EventKind{river.EventKindJobCompleted}, ChanSize: 20_000})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for ev := range events {
			if ev.Job == nil || ev.Job.Kind != refreshKind || ev.JobStats == nil {
				continue
			}
			t.mu.Lock()
			t.done[ev.Job.ID] = ev.JobStats.CompleteDuration
			t.mu.Unlock()
		}
	}()
	return ended
}

// timings returns the jobs timed, with their completion times.
func (t *jobTimer) timings() []jobTiming {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]jobTiming, 0, len(t.jobs))
	for id, j := range t.jobs {
		if d, ok := t.done[id]; ok {
			j.Done = d
		}
		out = append(out, *j)
	}
	return out
}

// jobsFile is where worker name keeps its jobs' timings.
func jobsFile(dir, name string) string { return filepath.Join(dir, name+".jobs") }

// saveTimings writes timings to path.
func saveTimings(path string, timings []jobTiming) error {
	raw, err := json.Marshal(timings)
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}

// readTimings reads the timings of the workers' jobs (a worker killed
// before it wrote them: none, and killed reports it).
func readTimings(dir string, procs int) (all []jobTiming, missing []string, err error) {
	for i := range procs {
		raw, err := os.ReadFile(jobsFile(dir, workerName(i)))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, workerName(i))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		var ts []jobTiming
		if err := json.Unmarshal(raw, &ts); err != nil {
			return nil, nil, fmt.Errorf("%s's timings: %w", workerName(i), err)
		}
		all = append(all, ts...)
	}
	return all, missing, nil
}

// component is a row of the breakdown: its label, its name among the
// run's figures, and its value for a job (-1: not measured).
type component struct {
	label, name string
	of          func(jobTiming) time.Duration
}

var components = []component{
	{"job (Work; cursor read to write)", "job", func(j jobTiming) time.Duration { return j.Job }},
	{"at the bank (to the answer's headers)", "bank", func(j jobTiming) time.Duration { return j.Bank }},
	{"in the store (store.Store calls)", "store", func(j jobTiming) time.Duration { return j.Store }},
	{"other (job - bank - store)", "other", func(j jobTiming) time.Duration {
		if j.Job < 0 {
			return -1
		}
		return j.Job - j.Bank - j.Store
	}},
	{"fetch wait (slot free to next job)", "fetch wait", func(j jobTiming) time.Duration { return j.Gap }},
	{"completion (River's batched UPDATE)", "completion", func(j jobTiming) time.Duration { return j.Done }},
}

// quantiles returns the median and the 90th percentile (nearest rank) of
// the component over the jobs that have it, and how many have it.
func quantiles(jobs []jobTiming, of func(jobTiming) time.Duration) (p50, p90 time.Duration, n int) {
	var ds []time.Duration
	for _, j := range jobs {
		if d := of(j); d >= 0 {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ds)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(ds))+0.999999) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return rank(0.5), rank(0.9), len(ds)
}

// side is one column of the breakdown: a name and its jobs.
type side struct {
	name string
	jobs []jobTiming
}

// printBreakdown prints the per-job table: the median and the 90th
// percentile of each component per side, in milliseconds ("-": not
// measured on that side), and adds each to figs.
func printBreakdown(out io.Writer, sides []side, figs *figures) {
	fmt.Fprintf(out, "%-40s", "per job, ms: median / p90")
	for _, s := range sides {
		fmt.Fprintf(out, " %19s", fmt.Sprintf("%s (%d)", s.name, len(s.jobs)))
	}
	fmt.Fprintln(out)
	for _, c := range components {
		fmt.Fprintf(out, "  %-38s", c.label)
		for _, s := range sides {
			p50, p90, n := quantiles(s.jobs, c.of)
			if n == 0 {
				fmt.Fprintf(out, " %19s", "-")
				continue
			}
			fmt.Fprintf(out, "  %7.2f / %7.2f", ms(p50), ms(p90))
			figs.add("per job, "+s.name+": "+c.name+", median", "ms", ms(p50))
			figs.add("per job, "+s.name+": "+c.name+", p90", "ms", ms(p90))
		}
		fmt.Fprintln(out)
	}
}
