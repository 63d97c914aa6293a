package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// overBudget is the class of a result the bank refused as over the
// account's budget of calls without the PSU (429 ACCESS_EXCEEDED): a call
// the SDK should never have sent.
const overBudget = "bank-over-budget"

// tally is what one worker (or the in-process baseline) saw: results per
// outcome class, and refreshes (Done results) per account key. A worker
// writes a line "class account-key" per result, one write each, so a
// worker killed with SIGKILL leaves every line of the results it had.
type tally struct {
	outcomes map[string]int
	done     map[string]int
}

func newTally() *tally { return &tally{outcomes: map[string]int{}, done: map[string]int{}} }

// add counts one line's class and account key.
func (t *tally) add(class, key string) {
	t.outcomes[class]++
	if class == "done" {
		t.done[key]++
	}
}

// classOf is the outcome class of res: its outcome, or overBudget when
// the bank refused a call as over the budget.
func classOf(res refresh.Result) string {
	var ce *client.Error
	if errors.As(res.Err, &ce) && errors.Is(res.Err, client.ErrAccessExceeded) {
		return overBudget
	}
	return strings.ReplaceAll(res.Outcome.String(), " ", "-")
}

// resultLine is a worker's line for res: its class and the account's key
// (a hash, not the account id).
func resultLine(res refresh.Result) string {
	return classOf(res) + " " + budget.Key(res.Job.AccountID(), res.Job.Card()) + "\n"
}

// readTally reads a worker's lines (no file: the worker saw nothing).
func readTally(path string) (*tally, error) {
	t := newTally()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// A line cut by SIGKILL mid-write has no key: not a result.
		class, key, ok := strings.Cut(sc.Text(), " ")
		if ok && key != "" {
			t.add(class, key)
		}
	}
	return t, sc.Err()
}

// cursorKey is the store key of an account's cursor: its budget key (a
// hash, not the account id).
func cursorKey(accountID string, card bool) string {
	return "refreshworkers/cursor/" + budget.Key(accountID, card)
}

// loadCursor reads into c the cursor kept for an account, if any.
func loadCursor(ctx context.Context, st store.Store, accountID string, card bool, c *refresh.Cursor) error {
	raw, err := st.Get(ctx, cursorKey(accountID, card))
	if errors.Is(err, store.ErrNotStored) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, c)
}

// saveCursor keeps the cursor of a done result.
func saveCursor(ctx context.Context, st store.Store, res refresh.Result) error {
	raw, err := json.Marshal(res.Cursor)
	if err != nil {
		return err
	}
	return st.Put(ctx, cursorKey(res.Job.AccountID(), res.Job.Card()), raw, 0)
}

// baselineResult is what the baseline process prints: accounts done,
// calls the bank refused as over the budget, and accounts per second.
type baselineResult struct {
	Done, Over int
	Rate       float64
	// Jobs are the per-job breakdowns (breakdown.go).
	Jobs []jobTiming
	// CPU is the process's CPU time (user and system), which the
	// scheduler reads when the process has ended.
	CPU time.Duration `json:"-"`
}

// runBaselineProcess runs the baseline in a process of its own (this
// program again, with -baseline-process file) and returns its result.
func runBaselineProcess(ctx context.Context, file string) (baselineResult, error) {
	var res baselineResult
	cmd := exec.CommandContext(ctx, os.Args[0], "-baseline-process", file)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		return res, fmt.Errorf("the baseline process: %w", err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, fmt.Errorf("the baseline process's result: %w", err)
	}
	res.CPU = cpuOf(cmd)
	return res, nil
}

// baselineProcess is the baseline's process: it refreshes every account
// of the stored sessions once with the in-process refresher on its
// baseline store and as many workers as the worker processes have together,
// against the same emulator, and prints its result as JSON to out.
func baselineProcess(ctx context.Context, out io.Writer, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var su setup
	if err := json.Unmarshal(raw, &su); err != nil {
		return err
	}
	pcfg, err := pgxpool.ParseConfig(su.Conn)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	st, err := pgstore.New(pool, pgstore.WithSchema(su.Schema))
	if err != nil {
		return err
	}
	sessions := make([]*sca.Session, su.Sessions)
	for i := range sessions {
		if sessions[i], err = sca.LoadSession(ctx, st, "user-"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	stopProfile, err := startProfile(su.Profile, "baseline-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		return err
	}
	t, rate, jobs, err := baseline(ctx, su, sessions, st, su.Procs*su.Workers)
	stopProfile()
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(baselineResult{Done: t.outcomes["done"], Over: t.outcomes[overBudget], Rate: rate, Jobs: jobs})
}

// baseline refreshes every account of sessions once with the in-process
// refresher on the setup's baseline store (see baseMemory) and workers
// workers, against the setup's bank, and returns what it saw, its rate in
// accounts per second and its jobs' breakdowns (breakdown.go). On a memory store it runs
// refresh.Refresher.Run over the sessions in memory. On pgstore, in a
// schema of its own made for this run (its budget keys new, as a memory
// store's are), it lists the sessions from stored, as a TPP's refresher
// does, and workers goroutines each read a job's cursor, refresh the
// account (refresh.Refresher.Refresh, the step riverrefresh runs) and
// write the cursor: the work of a River worker's job, without River.
func baseline(ctx context.Context, su setup, sessions []*sca.Session, stored store.Store, workers int) (*tally, float64, []jobTiming, error) {
	if su.BaseStore != basePgstore {
		// Run gives a job no context of its own: each call counts on the
		// clock of the account it names.
		m := &meter{byAccount: map[string]*jobClock{}}
		for _, s := range sessions {
			for _, id := range s.AccountIDs {
				m.byAccount[budget.Key(id, false)] = &jobClock{}
			}
			for _, id := range s.CardAccountIDs {
				m.byAccount[budget.Key(id, true)] = &jobClock{}
			}
		}
		c, err := newClient(su, &timedStore{Store: store.NewMemoryStore(), m: m}, workers, m)
		if err != nil {
			return nil, 0, nil, err
		}
		r, err := newRefresher(c, workers)
		if err != nil {
			return nil, 0, nil, err
		}
		all := func(yield func(*sca.Session, error) bool) {
			for _, s := range sessions {
				if !yield(s, nil) {
					return
				}
			}
		}
		t := newTally()
		start := time.Now()
		for res, err := range r.Run(ctx, refresh.JobsFrom(all, nil, nil)) {
			if err != nil {
				return nil, 0, nil, err
			}
			t.add(classOf(res), budget.Key(res.Job.AccountID(), res.Job.Card()))
		}
		took := time.Since(start)
		jobs := make([]jobTiming, 0, len(m.byAccount))
		for _, c := range m.byAccount {
			jobs = append(jobs, jobTiming{Job: -1, Bank: time.Duration(c.bank.Load()), Store: time.Duration(c.store.Load()), Gap: -1, Done: -1})
		}
		return t, float64(t.outcomes["done"]) / took.Seconds(), jobs, nil
	}

	pcfg, err := pgxpool.ParseConfig(su.Conn)
	if err != nil {
		return nil, 0, nil, err
	}
	pcfg.MaxConns = int32(workers + 2)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, 0, nil, err
	}
	defer pool.Close()
	schema := su.Schema + baseSchemaSuffix + strconv.Itoa(os.Getpid())
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return nil, 0, nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		_, _ = pool.Exec(cctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	}()
	st, err := pgstore.New(pool, pgstore.WithSchema(schema))
	if err == nil {
		err = st.Migrate(ctx)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	m := &meter{}
	timed := &timedStore{Store: st, m: m}
	c, err := newClient(su, timed, workers, m)
	if err != nil {
		return nil, 0, nil, err
	}
	r, err := newRefresher(c, workers)
	if err != nil {
		return nil, 0, nil, err
	}
	var failed error
	jobs := make(chan refresh.Job)
	results := make(chan refresh.Result)
	var wg sync.WaitGroup
	var timingsMu sync.Mutex
	var timings []jobTiming
	start := time.Now()
	go func() {
		defer close(jobs)
		for j := range refresh.JobsFrom(sca.ListSessions(ctx, stored), nil, func(err error) { failed = err }) {
			jobs <- j
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The fetch wait's counterpart: from this worker's last job's
			// end to its next job's start (the sessions' listing).
			var free time.Time
			for j := range jobs {
				start := time.Now()
				gap := time.Duration(-1)
				if !free.IsZero() {
					gap = start.Sub(free)
				}
				jctx, c := withJobClock(ctx)
				res := refresh.Result{Job: j, Outcome: refresh.Transient}
				if res.Err = loadCursor(jctx, timed, j.AccountID(), j.Card(), &j.Cursor); res.Err == nil {
					res = r.Refresh(jctx, j)
					if res.Outcome == refresh.Done {
						if err := saveCursor(jctx, timed, res); err != nil {
							res.Outcome, res.Err = refresh.Transient, err
						}
					}
				}
				free = time.Now()
				timingsMu.Lock()
				timings = append(timings, jobTiming{Job: free.Sub(start), Bank: time.Duration(c.bank.Load()),
					Store: time.Duration(c.store.Load()), Gap: gap, Done: -1})
				timingsMu.Unlock()
				results <- res
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	t := newTally()
	for res := range results {
		t.add(classOf(res), budget.Key(res.Job.AccountID(), res.Job.Card()))
	}
	took := time.Since(start)
	if failed != nil {
		return nil, 0, nil, failed
	}
	return t, float64(t.outcomes["done"]) / took.Seconds(), timings, nil
}

// newRefresher returns a refresher of workers workers on c.
func newRefresher(c *client.Client, workers int) (*refresh.Refresher, error) {
	svc, err := accounts.New(c)
	if err != nil {
		return nil, err
	}
	return refresh.New(svc, refresh.WithWorkers(workers))
}

// kill is worker-1's SIGKILL: the jobs running (in either worker) at
// that moment, and the moment on the database's clock.
type kill struct {
	running []int64
	at      time.Time
}

// killWorker sends SIGKILL to p and notes the jobs running then.
func killWorker(ctx context.Context, pool *pgxpool.Pool, schema string, p *exec.Cmd) (*kill, error) {
	k := &kill{}
	err := pool.QueryRow(ctx, "SELECT coalesce(array_agg(id), '{}'), now() FROM "+pgx.Identifier{schema}.Sanitize()+
		".river_job WHERE kind = 'psd2_refresh' AND state = 'running'").Scan(&k.running, &k.at)
	if err != nil {
		return nil, err
	}
	if err := p.Process.Signal(syscall.SIGKILL); err != nil {
		return nil, err
	}
	return k, nil
}

// jobSpan is the time from the first job of kind's start to the last
// one's end, on the database's clock.
func jobSpan(ctx context.Context, pool *pgxpool.Pool, schema, kind string) (time.Duration, error) {
	var from, to time.Time
	err := pool.QueryRow(ctx, "SELECT min(attempted_at), max(finalized_at) FROM "+pgx.Identifier{schema}.Sanitize()+
		".river_job WHERE kind = $1", kind).Scan(&from, &to)
	return to.Sub(from), err
}

// timing prints the round's times: the scheduler's enqueue of the round
// (its first schedule job, from its start to its end on the database's
// clock: the sessions read and every job inserted), and the time per
// account, the refresh jobs' span (jobSpan) and the wall time from the
// engines' start each over the accounts, and the CPU time per account of
// the worker processes and of this one (the emulator's answers, the
// enqueue) over the round, which a shared machine's load moves less. The
// time per account is what stays flat from 1,000 to 100,000 accounts.
func timing(ctx context.Context, out io.Writer, pool *pgxpool.Pool, schema string, total int, wall, workersCPU, schedCPU, bankCPU time.Duration) error {
	var from, to time.Time
	err := pool.QueryRow(ctx, "SELECT attempted_at, finalized_at FROM "+pgx.Identifier{schema}.Sanitize()+
		".river_job WHERE kind = 'psd2_refresh_schedule' ORDER BY id LIMIT 1").Scan(&from, &to)
	if err != nil {
		return fmt.Errorf("the schedule job: %w", err)
	}
	span, err := jobSpan(ctx, pool, schema, "psd2_refresh")
	if err != nil {
		return err
	}
	enq, n := to.Sub(from), float64(max(total, 1))
	fmt.Fprintf(out, "enqueue: the scheduler's job enqueued %d jobs in %v (%.1f µs per job)\n",
		total, enq.Round(time.Millisecond), float64(enq.Nanoseconds())/1e3/n)
	fmt.Fprintf(out, "time per account: %.3f ms over the jobs' span (%v), %.3f ms from the engines' start (%v)\n",
		ms(span)/n, span.Round(100*time.Millisecond), ms(wall)/n, wall.Round(100*time.Millisecond))
	fmt.Fprintf(out, "CPU per account over the round (user and system): worker processes %.3f ms, this process (the scheduler) %.3f ms, the bank's process %.3f ms\n",
		ms(workersCPU)/n, ms(schedCPU)/n, ms(bankCPU)/n)
	return nil
}

// report prints the round's checks: refreshes per account (none lost,
// none twice), calls over the budget, and, after a kill, how long the
// jobs running then took to finish.
func report(ctx context.Context, out io.Writer, pool *pgxpool.Pool, schema string, st *pgstore.Store,
	sessions []*sca.Session, tallies []*tally, k *kill) error {
	accountsN, once, lost, twice, over := 0, 0, 0, 0, 0
	for _, t := range tallies {
		over += t.outcomes[overBudget]
	}
	for _, s := range sessions {
		for _, id := range s.AccountIDs {
			accountsN++
			key := budget.Key(id, false)
			n := 0
			for _, t := range tallies {
				n += t.done[key]
			}
			switch {
			case n == 1:
				once++
			case n > 1:
				twice++
			default:
				// No line: lost, unless the cursor says the account was
				// refreshed this round (a worker killed between keeping
				// the cursor and writing its line).
				var c refresh.Cursor
				if err := loadCursor(ctx, st, id, false, &c); err != nil {
					return err
				}
				if c.RefreshedAt.IsZero() {
					lost++
				} else {
					once++
				}
			}
		}
	}
	fmt.Fprintf(out, "accounts %d: refreshed once %d, lost %d, refreshed twice %d; calls over the budget (the bank's 429 ACCESS_EXCEEDED) %d\n",
		accountsN, once, lost, twice, over)
	if k != nil {
		// River's rescuer records an error on each job it rescues: its
		// time is when the job could run again.
		var last, rescued *time.Time
		var left, rescues int
		err := pool.QueryRow(ctx, "SELECT max(finalized_at), count(*) FILTER (WHERE state <> 'completed'), "+
			"max((errors[1]->>'at')::timestamptz), count(*) FILTER (WHERE errors IS NOT NULL) FROM "+
			pgx.Identifier{schema}.Sanitize()+".river_job WHERE id = ANY($1)", k.running).Scan(&last, &left, &rescued, &rescues)
		if err != nil {
			return err
		}
		since := func(t *time.Time) time.Duration {
			if t == nil {
				return 0
			}
			return t.Sub(k.at).Round(100 * time.Millisecond)
		}
		fmt.Fprintf(out, "after SIGKILL: of the %d jobs running then, %d rescued by River %v later; all finished %v later (%d not completed)\n",
			len(k.running), rescues, since(rescued), since(last), left)
	}
	return nil
}

// cpuOf is the CPU time (user and system) of an ended process (0 for one
// not ended).
func cpuOf(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
