// Command refreshworkers refreshes a round of accounts (a few thousand,
// or 100,000) on River, as a TPP with several replicas would: against the
// emulator and a PostgreSQL database, it runs a scheduler (this process),
// two worker processes (-procs: 1 to 8; this program again, with
// -worker), each a riverrefresh.Engine, and the bank: the emulator behind
// a counting front, in a process of its own (this program again, with
// -emulator-process). The scheduler enqueues the round (one job per
// account) and watches it; the workers share it out through River; the
// front counts, per phase, the requests, the emulator's time over them,
// the 429 answers (calls over an account's budget) and each account's
// balances answered: what the bank saw, apart from what the workers say.
// The scheduler shows a progress line (plain lines when stdout is not a
// terminal) and, at the end, a table of the outcomes each worker saw.
// River's web UI is served on a loopback port meanwhile (-ui; -linger
// keeps it up after the round). Every engine runs River's OpenTelemetry
// middleware (otelriver, through riverrefresh.Config.Middleware) on an
// OpenTelemetry tracer provider; the example prints how many spans each
// process made. The scheduler exports River's queue states per bank
// queue through the otel module's gauges (psd2otel.Gauges.Queues over
// Engine.QueueStats, the adapter in queues.go) and prints one collection
// at half the round.
//
// It reads the server from PSD2_TEST_POSTGRES (a pgx connection string),
// works in a schema of its own and drops it at the end. From
// pgstore/examples (a module of its own):
//
//	PSD2_TEST_POSTGRES='host=/tmp/pg user=me dbname=postgres' go run ./refreshworkers -accounts 2000
//
// Two more modes measure the engine in the same run:
//
//   - -baseline first refreshes the same seeded accounts with the
//     in-process refresher (package refresh) on a memory store, in a
//     process of its own (as each River worker and the bank run in
//     theirs), with as many workers as the worker processes have
//     together, then runs the River round, then the baseline again, and
//     prints the rates, the ratio of River's to the baseline's mean, and
//     the CPU time each side's processes spent per account (the bank's
//     process is reported apart); with PostgreSQL on this machine, also
//     the server's CPU time per account in each side's phase, and the
//     ratio of the two sides' CPU per account over every process of the
//     run (their own, the bank's and the server's: on 2 shared cores,
//     what sets the throughput), or a line saying why the server's time
//     could not be read (pgcpu.go);
//   - -kill sends SIGKILL to worker-1 when half the round is done, and
//     prints how long its running jobs took to finish in the other
//     workers (River's rescue, after -rescue).
//
// -baseline-store pgstore gives the baseline the workers' store kind:
// the budget in pgstore (a schema of its own per run) and each account's
// cursor read and written around its job, on as many goroutines as the
// workers have jobs at once, the work of a River worker's job without
// River; the default, memory, is the baseline the goal is set
// against. -cpuprofile DIR writes each worker's and baseline's CPU
// profile into DIR (worker-1.pprof, baseline-PID.pprof), for go tool
// pprof.
//
// Every run ends with a per-job breakdown (breakdown.go), the median
// and the 90th percentile per side of: the job; its time at the bank
// (the client's requests, to the answer's headers); its time in the
// store (its store.Store calls); the rest (the SDK's own work, the wait
// for a CPU); and, on River's side, the fetch wait (from a job's end,
// which frees its slot, to the slot's next job, in each worker process)
// and the completion (River's, to its batched UPDATE; the slot is free
// meanwhile). -runs N repeats the whole measurement (a new bank, seed and
// schema each time) and prints each figure's median and range over the
// runs. On 2 shared cores (PostgreSQL and every process on them, load 3
// to 9 from other work), 3 runs over 2,000 accounts each:
//
//	go run ./refreshworkers -accounts 2000 -baseline -runs 3 -ui '' -no-otel
//
// River refreshed 0.40 (0.35-0.43) of the memory baseline's accounts/s
// and, with -baseline-store pgstore, 0.75 (0.60-0.78) of the pgstore
// baseline's. Per job (medians) River's job took 30.5 ms and the
// pgstore baseline's 31.5 ms (at the bank 3.6 and 6.2 ms, in the store
// 16.6 and 17.9 ms); River's fetch wait added 10.5 ms a job (p90 35.6
// ms), against none for the baseline's goroutines, and its completion
// took 143 ms, off the slot. Those rounds fetched no job ahead; with
// riverrefresh's default since (Config.FetchAhead, 4 jobs at hand per
// process; 6 runs each, interleaved, load 6 to 14) the fetch wait fell
// to 0.10-0.22 ms (from 5.6-18.7 ms) and the ratio to the pgstore
// baseline was 0.84 (0.65-1.20), against 0.79 (0.48-1.12) with none
// (-fetch-ahead -1).
//
// Over 10,000 accounts, with the engine's fetch defaults of now (a 20
// ms cooldown, 8 jobs ahead), River reached 0.86 (0.79-1.00) of the
// pgstore baseline over the jobs' span, in 9 runs paired with runs of
// the earlier defaults (5 ms, 4 ahead: 0.83, 0.73-0.89), load 0.5 to 6:
//
//	go run ./refreshworkers -accounts 10000 -baseline -baseline-store pgstore -runs 3 -ui '' -no-otel
//
// -floor measures River alone after the round: as many jobs that do
// nothing, on as many worker processes with the same jobs at once and
// fetch settings (floor.go). It prints River's CPU per job (the workers',
// the insert's and PostgreSQL's) and, with -baseline, the ceiling of
// River's ratio on busy cores: the baseline's CPU per account over every
// process, over the sum of it and River's alone. -worker-gomaxprocs N
// sets each worker process's GOMAXPROCS, as a container's CPU limit does
// (Go's default is the machine's cores).
//
// -fetch-cooldown, -fetch-poll and -fetch-ahead set the workers' River
// fetch settings (riverrefresh.Config.FetchCooldown, FetchPollInterval
// and FetchAhead), to compare River's defaults (100ms, 1s, none: -1)
// with the engine's; -no-otel leaves River's OpenTelemetry middleware
// out of them, as the baseline has none.
//
// Every mode ends with the checks of the round: refreshes per account
// (each exactly once: none lost, none twice) and calls the bank refused
// as over its budget of 4 a day (none), from the workers' lines and from
// the bank's front; and with its times: seeding the emulator and storing
// the sessions, the scheduler's enqueue of the round (its River job's
// run: the sessions read, the jobs inserted in riverrefresh's batches)
// and the time per account (the refresh jobs' span, and the time from
// the engines' start, over the accounts), which stays flat from 1,000 to
// 100,000 accounts:
//
//	go run ./refreshworkers -accounts 100000 -procs 4 -ui '' -no-otel
package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"

	"riverqueue.com/riverui"
)

// uiAddr is where River's UI listens; linger is how long it stays up
// after the round.
var (
	uiAddr string
	linger time.Duration
)

// bankName names the example's bank in River.
const bankName = "examplebank"

// options are the scheduler's flags.
type options struct {
	// Accounts is the number of accounts seeded and refreshed; Workers
	// the jobs each worker process runs at once; Procs the worker
	// processes (0: 2).
	Accounts, Workers, Procs int
	// Baseline measures the in-process refresher first; Kill sends
	// SIGKILL to worker-1 halfway.
	Baseline, Kill bool
	// Rescue is River's RescueStuckJobsAfter.
	Rescue time.Duration
	// FetchCooldown and FetchPoll are the workers' River fetch settings
	// (riverrefresh.Config.FetchCooldown and FetchPollInterval; 0: the
	// engine's defaults).
	FetchCooldown, FetchPoll time.Duration
	// FetchAhead is the workers' riverrefresh.Config.FetchAhead (0: the
	// engine's default; negative: none).
	FetchAhead int
	// NoOtel leaves River's OpenTelemetry middleware out of the workers
	// (the in-process baseline has none).
	NoOtel bool
	// Profile is where the worker and baseline processes write CPU
	// profiles (setup.Profile).
	Profile string
	// BaseStore is the baseline's store for the budget and the cursors:
	// baseMemory or basePgstore.
	BaseStore string
	// Runs is how many times the whole measurement runs (0: once).
	Runs int
	// Floor measures River alone after the round (floor.go).
	Floor bool
	// WorkerGOMAXPROCS is each worker process's GOMAXPROCS (0: Go's
	// default, the cores the process may use).
	WorkerGOMAXPROCS int
}

// setup is what a worker process needs: the bank, the TPP's credentials,
// the database, its worker limit, River's rescue delay and fetch
// settings, and the directory where each worker writes a line per result
// (Dir/name); and what the baseline process needs besides: the number of
// stored sessions (keys user-0, user-1, ...).
type setup struct {
	URL, Conn, Schema, Dir               string
	CA, CertPEM, KeyPEM                  []byte
	Workers, Procs, Sessions, FetchAhead int
	Rescue, FetchCooldown, FetchPoll     time.Duration
	NoOtel                               bool
	// Profile is a directory where each worker and baseline process
	// writes its CPU profile (name.pprof); empty: none.
	Profile string
	// BaseStore is the baseline's store (options.BaseStore); with
	// basePgstore each baseline run works in a schema of its own,
	// Schema+baseSchemaSuffix+its process id.
	BaseStore string
}

// The baseline's stores: a memory store (the budget only, as the
// in-process refresher's default), or pgstore, the workers' store kind,
// in a schema of its own per run (the budget's counts and claims apart
// from the River round's and new, as a memory store's are), where it also
// keeps each account's cursor, read before the account's job and written
// after it, as the workers do.
const (
	baseMemory       = "memory"
	basePgstore      = "pgstore"
	baseSchemaSuffix = "_base"
)

// cleanupTimeout bounds each clean-up at the end of a run (dropping a
// schema, stopping the scheduler's engine), which runs after the run's
// context may have ended: a database that stopped answering must not
// hold the program.
const cleanupTimeout = 30 * time.Second

func main() {
	c, err := parseArgs(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2) // the flag package printed why
	}
	uiAddr, linger = c.ui, c.linger
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case c.worker != "":
		err = work(ctx, c.worker, c.name)
	case c.floorWorker != "":
		err = floorWork(ctx, c.floorWorker, c.name)
	case c.baselineFile != "":
		err = baselineProcess(ctx, os.Stdout, c.baselineFile)
	case c.bankAccounts != 0:
		err = bankProcess(ctx, os.Stdin, os.Stdout, c.bankAccounts)
	default:
		err = run(ctx, os.Stdout, os.Getenv("PSD2_TEST_POSTGRES"), c.o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "refreshworkers:", err)
		os.Exit(1)
	}
}

// cmdline is the command line: the scheduler's options, River's UI, and
// the process the example starts itself as (a worker, the baseline, the
// bank), if any.
type cmdline struct {
	o                          options
	ui                         string
	linger                     time.Duration
	worker, name, baselineFile string
	floorWorker                string
	bankAccounts               int
}

// parseArgs parses the command line's arguments.
func parseArgs(args []string) (cmdline, error) {
	var c cmdline
	o := &c.o
	fs := flag.NewFlagSet("refreshworkers", flag.ContinueOnError)
	fs.IntVar(&o.Accounts, "accounts", 2000, "accounts to seed and refresh")
	fs.IntVar(&o.Workers, "workers", 4, "jobs each worker process runs at once")
	fs.IntVar(&o.Procs, "procs", 2, fmt.Sprintf("worker processes (1 to %d)", maxProcs))
	fs.BoolVar(&o.Baseline, "baseline", false, "first refresh the same accounts in-process on a memory store and compare the rates")
	fs.BoolVar(&o.Kill, "kill", false, "SIGKILL worker-1 when half the round is done")
	fs.DurationVar(&o.Rescue, "rescue", 10*time.Second, "how long a job may run before River rescues it (its worker died)")
	fs.DurationVar(&o.FetchCooldown, "fetch-cooldown", 0, "the workers' River fetch cooldown (0: riverrefresh.DefaultFetchCooldown; River's default is 100ms)")
	fs.DurationVar(&o.FetchPoll, "fetch-poll", 0, "the workers' River fetch poll interval (0: riverrefresh.DefaultFetchPollInterval; River's default is 1s)")
	fs.IntVar(&o.FetchAhead, "fetch-ahead", 0, "the jobs each worker process takes from River beyond its workers (0: riverrefresh.DefaultFetchAhead; negative: none, River's fetch alone)")
	fs.StringVar(&c.ui, "ui", "127.0.0.1:0", "loopback address of River's web UI (empty: none)")
	fs.DurationVar(&c.linger, "linger", 0, "time to keep the UI up after the round")
	fs.StringVar(&c.worker, "worker", "", "run as a worker process with this setup file (used by the example itself)")
	fs.BoolVar(&o.NoOtel, "no-otel", false, "leave River's OpenTelemetry middleware out of the worker processes (the baseline has none)")
	fs.StringVar(&c.baselineFile, "baseline-process", "", "run the in-process baseline with this setup file and print its result (used by the example itself)")
	fs.StringVar(&c.name, "name", "", "the worker's name")
	fs.StringVar(&o.BaseStore, "baseline-store", baseMemory, "the baseline's store: memory, or pgstore (the workers' kind, with the cursors kept as the workers keep them)")
	fs.IntVar(&o.Runs, "runs", 1, fmt.Sprintf("how many times to run the whole measurement (1 to %d); over more than one, each figure's median and range", maxRuns))
	fs.IntVar(&c.bankAccounts, "emulator-process", 0, "run as the bank's process: the emulator with this many accounts seeded, behind its counting front (used by the example itself)")
	fs.IntVar(&o.WorkerGOMAXPROCS, "worker-gomaxprocs", 0, "each worker process's GOMAXPROCS (0: Go's default, the machine's cores or the container's CPU limit)")
	fs.BoolVar(&o.Floor, "floor", false, "after the round, measure River alone: as many jobs that do nothing, on the same worker processes and settings (with -baseline, the ceiling of River's ratio)")
	fs.StringVar(&c.floorWorker, "floor-worker", "", "run as a worker process of -floor with this setup file (used by the example itself)")
	fs.StringVar(&o.Profile, "cpuprofile", "", "directory where each worker and baseline process writes its CPU profile (worker-1.pprof, baseline-1.pprof, ...)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments %q", fs.Args())
		fmt.Fprintln(fs.Output(), err)
		return c, err
	}
	return c, nil
}

// run measures o.Runs times (runOnce) and, over more than one run, prints
// each figure's median and range over them.
func run(ctx context.Context, out io.Writer, conn string, o options) error {
	if o.Runs == 0 {
		o.Runs = 1
	}
	if o.Runs < 1 || o.Runs > maxRuns {
		return fmt.Errorf("-runs %d: 1 to %d", o.Runs, maxRuns)
	}
	var all []figures
	for i := range o.Runs {
		if o.Runs > 1 {
			fmt.Fprintf(out, "== run %d of %d\n", i+1, o.Runs)
		}
		figs, err := runOnce(ctx, out, conn, o)
		if err != nil {
			return err
		}
		all = append(all, figs)
	}
	if o.Runs > 1 {
		printSpreads(out, all)
	}
	return nil
}

// maxRuns is the most runs -runs repeats.
const maxRuns = 20

// runOnce is one measurement, from the scheduler's process: it starts
// the bank's process (the emulator, seeded, behind its counting front),
// stores the sessions, starts the workers, enqueues the round and shows
// its progress; with -baseline it runs the baseline's process before and
// after. It returns the run's figures.
func runOnce(ctx context.Context, out io.Writer, conn string, o options) (figures, error) {
	var figs figures
	n := o.Accounts
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Rescue <= 0 {
		o.Rescue = 10 * time.Second
	}
	if o.Procs == 0 {
		o.Procs = 2
	}
	if o.Procs < 1 || o.Procs > maxProcs {
		return nil, fmt.Errorf("-procs %d: 1 to %d worker processes", o.Procs, maxProcs)
	}
	if conn == "" {
		return nil, errors.New("PSD2_TEST_POSTGRES is unset: the example needs a PostgreSQL server")
	}
	switch o.BaseStore {
	case "":
		o.BaseStore = baseMemory
	case baseMemory, basePgstore:
	default:
		return nil, fmt.Errorf("-baseline-store %q: memory or pgstore", o.BaseStore)
	}
	bk, err := startBank(ctx, n)
	if err != nil {
		return nil, err
	}
	defer func() { _, _ = bk.close() }()
	var seeded = bk.hello.Seeded
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	schema := "refreshworkers_" + hex.EncodeToString(b[:])
	if err := exec1(ctx, conn, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		_ = exec1(cctx, conn, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	}()

	dir, err := os.MkdirTemp("", "refreshworkers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	su := setup{URL: bk.hello.URL, Conn: conn, Schema: schema, Dir: dir, Workers: o.Workers, Procs: o.Procs, Rescue: o.Rescue,
		FetchCooldown: o.FetchCooldown, FetchPoll: o.FetchPoll, FetchAhead: o.FetchAhead, NoOtel: o.NoOtel, Profile: o.Profile, BaseStore: o.BaseStore,
		CA: bk.hello.CA, CertPEM: bk.hello.CertPEM, KeyPEM: bk.hello.KeyPEM}
	tr := newTracing()
	e, pool, st, _, err := engine(ctx, su, riverrefresh.Config{Schedule: true, Middleware: tr.middleware(),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}, nil)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	saveStart := time.Now()
	sessions, err := saveSessions(ctx, st, seeded.Customers)
	if err != nil {
		return nil, err
	}
	saveTook := time.Since(saveStart)
	total := 0
	for _, s := range sessions {
		total += len(s.AccountIDs)
	}
	if err := e.Migrate(ctx); err != nil {
		return nil, err
	}
	su.Sessions = len(sessions)
	raw, err := json.Marshal(su)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "setup.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "%d accounts of %d PSUs in schema %s; scheduler, %d workers of %d jobs at once; the bank (the emulator behind a counting front) in a process of its own (pid %d)\n",
		total, len(seeded.Customers), schema, o.Procs, o.Workers, bk.cmd.Process.Pid)
	seedTook := bk.hello.SeedTook
	fmt.Fprintf(out, "seeding the emulator took %v (%.1f µs per account); storing the sessions %v\n",
		seedTook.Round(time.Millisecond), float64(seedTook.Nanoseconds())/1e3/float64(max(total, 1)), saveTook.Round(time.Millisecond))
	// What the bank saw in each phase: each mark ends one.
	if _, err := bk.mark(); err != nil {
		return nil, err
	}
	var bankCPU = map[string]time.Duration{}
	bankSaw := func(phase string) (bankCounts, error) {
		c, err := bk.mark()
		if err != nil {
			return c, err
		}
		bankCPU[phase] += c.CPU
		perCall := 0.0
		if c.Requests > 0 {
			perCall = ms(c.Handling) / float64(c.Requests)
		}
		fmt.Fprintf(out, "the bank over %s: %d requests (the emulator's time %.3f ms each); balances answered for %d accounts once, %d more than once; 429 (over the budget) %d; its CPU %.2f ms per account\n",
			phase, c.Requests, perCall, c.Once, c.More, c.Refused, ms(c.CPU)/float64(max(total, 1)))
		return c, nil
	}
	// The baseline runs before the River round and after it, and the
	// ratio is against the mean of the two: a shared machine's load
	// moves during a run. Each refreshes every account once: with the
	// River round, 3 of the 4 calls a day each account allows. It runs
	// in a process of its own (this program again), as each River worker
	// and the bank do.
	var baseRates []float64
	var baseCPU time.Duration
	var baseJobs []jobTiming
	// PostgreSQL's CPU in each phase, when the server is a process of this
	// machine (pgcpu.go); pgErr says why not.
	pg := findServer(ctx, pool)
	pgCPU := map[string]time.Duration{}
	var pgErr error
	pgPhase := func() func(phase string) {
		before, err := pg.cpu()
		return func(phase string) {
			after, err2 := pg.cpu()
			if err = errors.Join(err, err2); err != nil {
				pgErr = err
				return
			}
			pgCPU[phase] += after - before
		}
	}
	runBaseline := func(when string) error {
		pgDone := pgPhase()
		base, err := runBaselineProcess(ctx, file)
		if err != nil {
			return err
		}
		pgDone("baseline")
		baseRates = append(baseRates, base.Rate)
		baseCPU += base.CPU
		baseJobs = append(baseJobs, base.Jobs...)
		fmt.Fprintf(out, "baseline %s: the in-process refresher on a %s store in a process of its own, %d workers: %d of %d accounts done, %.0f accounts/s, calls over the budget %d\n",
			when, o.BaseStore, o.Procs*o.Workers, base.Done, total, base.Rate, base.Over)
		_, err = bankSaw("the baseline " + when)
		return err
	}
	if o.Baseline {
		if err := runBaseline("before"); err != nil {
			return nil, err
		}
	}

	var wg sync.WaitGroup
	var procs []*exec.Cmd
	// This process's CPU from here to the round's end: the scheduler's
	// enqueue and its watch.
	schedCPU := refreshbench.ProcessCPU()
	pgRound := pgPhase()
	for i := range o.Procs {
		cmd := workerCmd(ctx, o, "-worker", file, workerName(i))
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		procs = append(procs, cmd)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = cmd.Wait()
		}()
	}
	defer func() {
		for _, p := range procs {
			_ = p.Process.Signal(os.Interrupt)
		}
		wg.Wait()
	}()
	// The scheduler enqueues the round when it starts (River's leader).
	if err := e.Start(ctx); err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		_ = e.Stop(sctx)
	}()
	if uiAddr != "" {
		stopUI, err := serveUI(ctx, out, e, uiAddr)
		if err != nil {
			return nil, err
		}
		defer stopUI()
	}
	// River's queue states as OpenTelemetry gauges (the otel module's
	// psd2.refresh.queue.jobs and psd2.refresh.queue.paused), read from
	// this process's engine at each collection; shown once at half the
	// round.
	qg, err := newQueueGauge(e)
	if err != nil {
		return nil, err
	}
	defer qg.close()
	start := time.Now()
	var k *kill
	queuesShown := false
	halfway := func(done int) error {
		if done < total/2 {
			return nil
		}
		if !queuesShown {
			queuesShown = true
			line, err := qg.line(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "at %d/%d done, River's queues as OpenTelemetry collects them (psd2.refresh.queue.jobs, psd2.refresh.queue.paused): %s\n",
				done, total, line)
		}
		if !o.Kill || k != nil {
			return nil
		}
		k, err = killWorker(ctx, pool, schema, procs[0])
		if err == nil {
			fmt.Fprintf(out, "SIGKILL worker-1 at %d/%d done, %d jobs running\n", done, total, len(k.running))
		}
		return err
	}
	if err := progress(ctx, out, pool, schema, total, start, halfway); err != nil {
		return nil, err
	}
	wall := time.Since(start)
	schedCPU = refreshbench.ProcessCPU() - schedCPU
	pgRound("River")
	for _, p := range procs {
		_ = p.Process.Signal(os.Interrupt)
	}
	wg.Wait()
	var workersCPU time.Duration
	for _, p := range procs {
		workersCPU += cpuOf(p)
	}
	procs = nil
	fmt.Fprintf(out, "round done in %v\n", wall.Round(100*time.Millisecond))
	if _, err := bankSaw("the River round"); err != nil {
		return nil, err
	}
	tallies := make([]*tally, o.Procs)
	for i := range tallies {
		if tallies[i], err = readTally(filepath.Join(dir, workerName(i))); err != nil {
			return nil, err
		}
	}
	printTable(out, tallies)
	printSpans(out, tr, dir, o.Procs)
	if err := report(ctx, out, pool, schema, st, sessions, tallies, k); err != nil {
		return nil, err
	}
	if err := timing(ctx, out, pool, schema, total, wall, workersCPU, schedCPU, bankCPU["the River round"]); err != nil {
		return nil, err
	}
	riverJobs, missing, err := readTimings(dir, o.Procs)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		fmt.Fprintf(out, "not in the per-job breakdown: the jobs of %v (killed before it wrote them)\n", missing)
	}
	span, err := jobSpan(ctx, pool, schema, refreshKind)
	if err != nil {
		return nil, err
	}
	per := float64(max(total, 1))
	rate, wallRate := float64(total)/span.Seconds(), float64(total)/wall.Seconds()
	figs.add("River: accounts/s over the jobs' span", "accounts/s", rate)
	figs.add("River: accounts/s from the engines' start", "accounts/s", wallRate)
	figs.add("River: CPU per account, the workers", "ms", ms(workersCPU)/per)
	figs.add("River: CPU per account, the scheduler", "ms", ms(schedCPU)/per)
	figs.add("River: CPU per account, the bank's process", "ms", ms(bankCPU["the River round"])/per)
	if pgErr == nil {
		figs.add("River: CPU per account, PostgreSQL", "ms", ms(pgCPU["River"])/per)
	}
	sides := []side{{name: "River", jobs: riverJobs}}
	var floor *floorResult
	if o.Floor {
		f, err := runFloor(ctx, pool, su, file, total, o, pg)
		if err != nil {
			return nil, err
		}
		floor = &f
	}
	baseAllPer := 0.0 // the baseline's CPU per account over every process of its phase
	if o.Baseline {
		if err := runBaseline("after"); err != nil {
			return nil, err
		}
		baseRate := (baseRates[0] + baseRates[1]) / 2
		fmt.Fprintf(out, "River: %.0f accounts/s from the first job's start to the last job's end (%v), %.0f accounts/s from the engines' start (%v)\n",
			rate, span.Round(100*time.Millisecond), wallRate, wall.Round(100*time.Millisecond))
		fmt.Fprintf(out, "throughput River / in-process %s (mean of before and after): %.2f (jobs' span), %.2f (from the engines' start)\n",
			o.BaseStore, rate/baseRate, wallRate/baseRate)
		// The bank's process and PostgreSQL are not counted: the CPU each
		// side's own processes spent per account.
		baseBankCPU := bankCPU["the baseline before"] + bankCPU["the baseline after"]
		fmt.Fprintf(out, "CPU per account (user and system, the processes' own): River's workers %.2f ms, in-process baseline %.2f ms (mean of before and after); the bank's process %.2f ms (River), %.2f ms (baseline)\n",
			ms(workersCPU)/per, ms(baseCPU)/(2*per), ms(bankCPU["the River round"])/per, ms(baseBankCPU)/(2*per))
		figs.add("baseline "+o.BaseStore+": accounts/s (mean of before and after)", "accounts/s", baseRate)
		figs.add("ratio River / baseline "+o.BaseStore+" (jobs' span)", "", rate/baseRate)
		figs.add("ratio River / baseline "+o.BaseStore+" (from the engines' start)", "", wallRate/baseRate)
		figs.add("baseline "+o.BaseStore+": CPU per account", "ms", ms(baseCPU)/(2*per))
		figs.add("baseline "+o.BaseStore+": CPU per account, the bank's process", "ms", ms(baseBankCPU)/(2*per))
		if pgErr != nil {
			fmt.Fprintf(out, "PostgreSQL's CPU per account: not measured (%v)\n", pgErr)
		} else {
			// Every process of the run on this machine: the side's own,
			// the bank's and the database's.
			riverAll := workersCPU + schedCPU + bankCPU["the River round"] + pgCPU["River"]
			baseAll := (baseCPU + baseBankCPU + pgCPU["baseline"]) / 2
			fmt.Fprintf(out, "PostgreSQL's CPU per account: River %.2f ms, baseline %.2f ms (mean of before and after); all of the run's processes: River %.2f ms, baseline %.2f ms (ratio %.2f)\n",
				ms(pgCPU["River"])/per, ms(pgCPU["baseline"])/(2*per), ms(riverAll)/per, ms(baseAll)/per, float64(riverAll)/float64(baseAll))
			figs.add("baseline "+o.BaseStore+": CPU per account, PostgreSQL", "ms", ms(pgCPU["baseline"])/(2*per))
			figs.add("CPU per account, all processes: River / baseline "+o.BaseStore, "", float64(riverAll)/float64(baseAll))
			baseAllPer = ms(baseAll) / per
		}
		sides = append(sides, side{name: "baseline " + o.BaseStore, jobs: baseJobs})
	}
	if floor != nil {
		printFloor(out, *floor, baseAllPer, o.BaseStore, &figs)
	}
	printBreakdown(out, sides, &figs)
	if linger > 0 && uiAddr != "" {
		fmt.Fprintf(out, "River's UI stays up for %v\n", linger)
		select {
		case <-ctx.Done():
		case <-time.After(linger):
		}
	}
	return figs, nil
}

// workerCmd is the command of a worker process: this program again with
// mode (-worker or -floor-worker) and the setup file, named name, its
// output on this process's standard error, and its GOMAXPROCS set when
// o.WorkerGOMAXPROCS is. Go's default is the machine's cores, or a
// container's CPU limit: a TPP running one worker per container of one
// core gets 1.
func workerCmd(ctx context.Context, o options, mode, file, name string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], mode, file, "-name", name)
	if o.WorkerGOMAXPROCS > 0 {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(o.WorkerGOMAXPROCS))
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// maxProcs is the most worker processes -procs starts.
const maxProcs = 8

// workerName is the name of worker i (from 0): worker-1, worker-2, ...
func workerName(i int) string { return "worker-" + strconv.Itoa(i+1) }

// validWorkerName reports whether name is one of workerName's.
func validWorkerName(name string) bool {
	for i := range maxProcs {
		if name == workerName(i) {
			return true
		}
	}
	return false
}

// saveWriters is how many sessions saveSessions stores at once.
const saveWriters = 8

// saveSessions stores the SDK session of each seeded customer, with its
// accounts, under "user-" and its index, saveWriters at once, and returns
// them in the customers' order.
func saveSessions(ctx context.Context, st store.Store, customers []emulator.SeededCustomer) ([]*sca.Session, error) {
	sessions := make([]*sca.Session, len(customers))
	for i, cu := range customers {
		ids := make([]string, 0, len(cu.Accounts))
		for _, a := range cu.Accounts {
			ids = append(ids, a.ID)
		}
		s, err := refreshbench.SessionOf(cu).WithAccounts(ids, nil)
		if err != nil {
			return nil, err
		}
		sessions[i] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, saveWriters)
	for w := range saveWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(sessions) && errs[w] == nil; i += saveWriters {
				errs[w] = sca.SaveSession(ctx, st, "user-"+strconv.Itoa(i), sessions[i])
			}
		}()
	}
	wg.Wait()
	return sessions, errors.Join(errs...)
}

// serveUI serves River's web UI on a loopback address: every queue and
// every waiting, snoozed, retried, cancelled and discarded job.
func serveUI(ctx context.Context, out io.Writer, e *riverrefresh.Engine, addr string) (func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("-ui %s: only a loopback address (the UI has no login)", addr)
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(e.Client(), nil),
		Logger: slog.New(slog.DiscardHandler), Prefix: "/riverui"})
	if err != nil {
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(out, "River's UI: http://%s/riverui/\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}

// progress shows the round's progress until every job is finalized,
// telling halfway (when set) the number done at each look.
func progress(ctx context.Context, out io.Writer, pool *pgxpool.Pool, schema string, total int, start time.Time,
	halfway func(done int) error) error {
	fi, _ := os.Stdout.Stat()
	tty := out == io.Writer(os.Stdout) && fi != nil && fi.Mode()&os.ModeCharDevice != 0
	look := lookEvery(total, tty || halfway != nil)
	every := max(time.Second, look)
	if tty {
		every = look
	}
	var shown time.Time
	t := time.NewTicker(look)
	defer t.Stop()
	for {
		counts := map[string]int{}
		rows, err := pool.Query(ctx, "SELECT state, count(*) FROM "+pgx.Identifier{schema}.Sanitize()+
			".river_job WHERE kind = 'psd2_refresh' GROUP BY state")
		if err != nil {
			return err
		}
		for rows.Next() {
			var s string
			var n int
			if err := rows.Scan(&s, &n); err != nil {
				return err
			}
			counts[s] = n
		}
		rows.Close()
		final := counts["completed"] + counts["cancelled"] + counts["discarded"]
		line := fmt.Sprintf("%5.1fs  done %d/%d  running %d  waiting %d  snoozed/retrying %d  cancelled %d  discarded %d",
			time.Since(start).Seconds(), counts["completed"], total, counts["running"], counts["available"],
			counts["scheduled"]+counts["retryable"], counts["cancelled"], counts["discarded"])
		if halfway != nil {
			if err := halfway(counts["completed"]); err != nil {
				return err
			}
		}
		switch {
		case tty:
			fmt.Fprint(out, "\r"+line)
		case final == total || time.Since(shown) >= every:
			fmt.Fprintln(out, line)
			shown = time.Now()
		}
		if final == total && total > 0 {
			if tty {
				fmt.Fprintln(out)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// lookEvery is how often progress counts the round's jobs. Each look is a
// scan of River's table, which grows with the round (50 to 120 ms of
// PostgreSQL's time over 100,000 jobs on this machine's 2 shared cores):
// looking once a second would add an O(n) cost per second to a round of
// n accounts, and so a cost per account that grows with n. A look every
// 100 µs per account (at least a second: 10 s over 100,000 accounts)
// keeps the looks' cost per account flat; a terminal, or a -kill that
// waits for the halfway mark, looks every 200 ms up to 10,000 accounts
// and as often as that above.
func lookEvery(total int, often bool) time.Duration {
	d := time.Duration(total) * 100 * time.Microsecond
	if often {
		return max(200*time.Millisecond, d/5)
	}
	return max(time.Second, d)
}

// printTable prints the outcome classes per worker.
func printTable(out io.Writer, tallies []*tally) {
	seen := map[string]bool{}
	for _, t := range tallies {
		for k := range t.outcomes {
			seen[k] = true
		}
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(out, "%-18s", "outcome")
	for i := range tallies {
		fmt.Fprintf(out, " %10s", workerName(i))
	}
	fmt.Fprintln(out)
	for _, k := range keys {
		fmt.Fprintf(out, "%-18s", k)
		for _, t := range tallies {
			fmt.Fprintf(out, " %10d", t.outcomes[k])
		}
		fmt.Fprintln(out)
	}
}

// work is a worker process: an engine working the bank's jobs until
// interrupted (or killed). It appends a line per result to its file in
// the setup's directory (see [tally]), and keeps each account's cursor in
// the shared store, as a TPP does: a job River runs again after its
// worker died between the refresh and River's record of it finds the
// account refreshed in the round and completes without a call.
func work(ctx context.Context, file, name string) error {
	su, err := workerSetup(file, name)
	if err != nil {
		return err
	}
	stopProfile, err := startProfile(su.Profile, name)
	if err != nil {
		return err
	}
	defer stopProfile()
	f, err := os.OpenFile(filepath.Join(su.Dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var mu sync.Mutex
	var st store.Store
	tr := newTracing()
	defer func() {
		if err := tr.save(spanFile(su.Dir, name)); err != nil {
			fmt.Fprintln(os.Stderr, name+": keeping the span counts:", err)
		}
	}()
	cfg := riverrefresh.Config{Work: true, FetchCooldown: su.FetchCooldown, FetchPollInterval: su.FetchPoll, FetchAhead: su.FetchAhead,
		Prepare: func(ctx context.Context, _ string, j *refresh.Job) error {
			return loadCursor(ctx, st, j.AccountID(), j.Card(), &j.Cursor)
		},
		Handle: func(ctx context.Context, _ string, res refresh.Result) {
			if res.Outcome == refresh.Done {
				if err := saveCursor(ctx, st, res); err != nil {
					fmt.Fprintln(os.Stderr, name+": keeping the cursor:", err)
				}
			}
			// One write per line: what the file holds survives a SIGKILL.
			line := resultLine(res)
			mu.Lock()
			_, _ = f.WriteString(line)
			mu.Unlock()
		}}
	if !su.NoOtel {
		cfg.Middleware = tr.middleware()
	}
	// The per-job breakdown (breakdown.go): each job timed, and its calls
	// to the bank and the store.
	jt := newJobTimer()
	cfg.Middleware = append(cfg.Middleware, jt)
	e, pool, _, st, err := engine(ctx, su, cfg, &meter{})
	if err != nil {
		return err
	}
	defer pool.Close()
	listened := jt.listen(e.Client())
	if err := e.Start(context.Background()); err != nil {
		return err
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = e.Stop(stop)
	// River closes the completion events' channel when it has stopped.
	select {
	case <-listened:
	case <-stop.Done():
	}
	if serr := saveTimings(jobsFile(su.Dir, name), jt.timings()); serr != nil {
		fmt.Fprintln(os.Stderr, name+": keeping the jobs' timings:", serr)
	}
	return err
}

// workerSetup reads a worker process's setup file, and checks its name.
func workerSetup(file, name string) (setup, error) {
	var su setup
	raw, err := os.ReadFile(file)
	if err != nil {
		return su, err
	}
	if err := json.Unmarshal(raw, &su); err != nil {
		return su, err
	}
	if !validWorkerName(name) {
		return su, fmt.Errorf("-name %q: worker-1 to worker-%d", name, maxProcs)
	}
	return su, nil
}

// engine makes a replica's engine, on a pool, store and accounts.Service
// of its own; it returns the store and the store the engine uses: with a
// meter, the store timed on it (timedStore), as the client's requests are
// (timedTransport).
func engine(ctx context.Context, su setup, cfg riverrefresh.Config, m *meter) (*riverrefresh.Engine, *pgxpool.Pool, *pgstore.Store, store.Store, error) {
	pool, err := schemaPool(ctx, su)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st, err := pgstore.New(pool, pgstore.WithSchema(su.Schema))
	if err == nil {
		err = st.Migrate(ctx)
	}
	var used store.Store = st
	if m != nil {
		used = &timedStore{Store: st, m: m}
	}
	var svc *accounts.Service
	if err == nil {
		var c *client.Client
		if c, err = newClient(su, used, su.Workers, m); err == nil {
			svc, err = accounts.New(c)
		}
	}
	if err != nil {
		pool.Close()
		return nil, nil, nil, nil, err
	}
	// A job takes milliseconds: a job running for RescueAfter has lost
	// its worker. JobTimeout stays below it, as River requires.
	cfg.Pool, cfg.Schema, cfg.RescueAfter, cfg.JobTimeout = pool, su.Schema, su.Rescue, su.Rescue/2
	cfg.Banks = map[string]riverrefresh.Bank{bankName: {Service: svc, Sessions: used, Workers: su.Workers}}
	e, err := riverrefresh.New(cfg)
	if err != nil {
		pool.Close()
		return nil, nil, nil, nil, err
	}
	return e, pool, st, used, nil
}

// newClient returns a client of the setup's bank and TPP on store st,
// keeping an idle connection for each of idle jobs at once; with a meter,
// its requests are timed on it (timedTransport).
func newClient(su setup, st store.Store, idle int, m *meter) (*client.Client, error) {
	creds, err := signing.LoadPEM(su.CertPEM, su.KeyPEM)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(su.CA)
	// An idle connection kept per worker: net/http keeps 2 by default,
	// and a new TLS handshake per job costs more than the job.
	var rt http.RoundTripper = &http.Transport{MaxIdleConnsPerHost: idle,
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	if m != nil {
		rt = &timedTransport{next: rt, m: m}
	}
	return client.New(su.URL, creds, client.WithStore(st), client.WithHTTPClient(&http.Client{Transport: rt}),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
}

// credsPEM encodes credentials as PEM for a worker process.
func credsPEM(c *signing.Credentials) (cert, key []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.Key)
	if err != nil {
		return nil, nil, err
	}
	cert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate.Raw})
	for _, ch := range c.Chain {
		cert = append(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ch.Raw})...)
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// exec1 runs one statement on a connection of its own.
func exec1(ctx context.Context, conn, sql string) error {
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

// startProfile starts writing this process's CPU profile to
// dir/name.pprof, and returns the function that ends it; with no dir it
// does nothing.
func startProfile(dir, name string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
