package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// River alone (-floor). After the River round, the same worker processes
// (as many, each with the same jobs at once, fetch settings, rescue and
// timeout as a worker's engine) work as many River jobs as the round had
// accounts, each doing nothing: what River costs per job on this machine
// (its fetch, its completion, its processes' runtime and the server's
// work for them), apart from any refresh. On cores the run keeps busy,
// River doing the baseline's work costs at least the baseline's CPU per
// account plus this, so its throughput against the baseline is at most
// B / (B + F), B the baseline's CPU per account over every process of its
// phase and F River's alone per job over every process of its phase (a
// run whose cores stand idle at times, its throughput set by waits rather
// than CPU, can pass it). The
// floor's jobs are smaller than refresh jobs (no unique key, a small
// argument) and are all inserted before the workers start, so F is a
// lower bound of River's share of a refresh job, and the ceiling an upper
// bound of the ratio River can reach.

// floorArgs are the arguments of a job that does nothing.
type floorArgs struct {
	N int `json:"n"`
}

// Kind is River's kind of the floor's jobs.
func (floorArgs) Kind() string { return "refreshworkers_floor" }

// floorWorker works a floor job: it does nothing.
type floorWorker struct {
	river.WorkerDefaults[floorArgs]
}

// Work does nothing.
func (floorWorker) Work(context.Context, *river.Job[floorArgs]) error { return nil }

// floorQueue is the queue of the floor's jobs.
const floorQueue = "refreshworkers_floor"

// floorInsertBatch is how many floor jobs one InsertMany inserts, as
// riverrefresh's scheduler batches a round.
const floorInsertBatch = 500

// floorClient returns a River client on pool in the setup's schema that
// knows the floor's jobs; with work, it works their queue as a worker's
// engine works its bank's (the same jobs at once, fetch settings, rescue
// and job timeout; riverrefresh's defaults where the setup gives none).
func floorClient(pool *pgxpool.Pool, su setup, work bool) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &floorWorker{})
	cfg := &river.Config{Schema: su.Schema, Workers: workers, RescueStuckJobsAfter: su.Rescue, JobTimeout: su.Rescue / 2,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if work {
		ahead, cooldown, poll := su.FetchAhead, su.FetchCooldown, su.FetchPoll
		switch {
		case ahead == 0:
			ahead = riverrefresh.DefaultFetchAhead
		case ahead < 0:
			ahead = 0
		}
		if cooldown == 0 {
			cooldown = riverrefresh.DefaultFetchCooldown
		}
		if poll == 0 {
			poll = riverrefresh.DefaultFetchPollInterval
		}
		cfg.Queues = map[string]river.QueueConfig{floorQueue: {MaxWorkers: su.Workers + ahead, FetchCooldown: cooldown,
			FetchPollInterval: poll}}
	}
	return river.NewClient(riverpgxv5.New(pool), cfg)
}

// floorWork is a worker process of the floor: it works the floor's jobs
// until interrupted.
func floorWork(ctx context.Context, file, name string) error {
	su, err := workerSetup(file, name)
	if err != nil {
		return err
	}
	pool, err := schemaPool(ctx, su)
	if err != nil {
		return err
	}
	defer pool.Close()
	c, err := floorClient(pool, su, true)
	if err != nil {
		return err
	}
	if err := c.Start(context.Background()); err != nil {
		return err
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Stop(stop)
}

// schemaPool is a pool on the setup's server whose connections work in
// its schema.
func schemaPool(ctx context.Context, su setup) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(su.Conn)
	if err != nil {
		return nil, err
	}
	pcfg.ConnConfig.RuntimeParams["search_path"] = su.Schema
	return pgxpool.NewWithConfig(ctx, pcfg)
}

// floorResult is what the floor measured: its jobs' span and the CPU
// time of its phase, per process kind; pgErr says why the server's was
// not read.
type floorResult struct {
	jobs                     int
	span                     time.Duration
	workers, sched, pg       time.Duration
	pgErr                    error
	insertTook, enginesStart time.Duration
}

// all is the floor's CPU time over every process of its phase.
func (f floorResult) all() time.Duration { return f.workers + f.sched + f.pg }

// runFloor inserts n floor jobs from this process, starts procs worker
// processes of the floor (this program again, with -floor-worker file),
// waits until every job has completed, and stops them.
// o gives the worker processes and their GOMAXPROCS.
func runFloor(ctx context.Context, pool *pgxpool.Pool, su setup, file string, n int, o options, pg *pgServer) (floorResult, error) {
	res := floorResult{jobs: n}
	c, err := floorClient(pool, su, false)
	if err != nil {
		return res, err
	}
	pgBefore, pgErr := pg.cpu()
	schedBefore := refreshbench.ProcessCPU()
	start := time.Now()
	params := make([]river.InsertManyParams, 0, floorInsertBatch)
	for i := 0; i < n; i += floorInsertBatch {
		params = params[:0]
		for j := i; j < min(n, i+floorInsertBatch); j++ {
			params = append(params, river.InsertManyParams{Args: floorArgs{N: j}, InsertOpts: &river.InsertOpts{Queue: floorQueue}})
		}
		if _, err := c.InsertMany(ctx, params); err != nil {
			return res, fmt.Errorf("inserting the floor's jobs: %w", err)
		}
	}
	res.insertTook = time.Since(start)
	var wg sync.WaitGroup
	var cmds []*exec.Cmd
	stopAll := func() {
		for _, p := range cmds {
			_ = p.Process.Signal(os.Interrupt)
		}
		wg.Wait()
	}
	for i := range o.Procs {
		cmd := workerCmd(ctx, o, "-floor-worker", file, workerName(i))
		if err := cmd.Start(); err != nil {
			stopAll()
			return res, err
		}
		cmds = append(cmds, cmd)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = cmd.Wait()
		}()
	}
	started := time.Now()
	err = waitCompleted(ctx, pool, su.Schema, floorArgs{}.Kind(), n)
	res.enginesStart = time.Since(started)
	res.sched = refreshbench.ProcessCPU() - schedBefore
	pgAfter, pgErr2 := pg.cpu()
	stopAll()
	if err != nil {
		return res, err
	}
	for _, p := range cmds {
		res.workers += cpuOf(p)
	}
	if pgErr == nil && pgErr2 == nil {
		res.pg = pgAfter - pgBefore
	} else {
		res.pgErr = firstErr(pgErr, pgErr2)
	}
	res.span, err = jobSpan(ctx, pool, su.Schema, floorArgs{}.Kind())
	return res, err
}

// firstErr is the first non-nil error of errs.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// waitCompleted returns once n jobs of kind have completed (or failed
// for good: an error).
func waitCompleted(ctx context.Context, pool *pgxpool.Pool, schema, kind string, n int) error {
	look := lookEvery(n, true) / 4
	for {
		var done, failed int
		err := pool.QueryRow(ctx, "SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state IN ('cancelled', 'discarded')) FROM "+
			pgx.Identifier{schema}.Sanitize()+".river_job WHERE kind = $1", kind).Scan(&done, &failed)
		if err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d jobs of %s did not complete", failed, kind)
		}
		if done >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(look):
		}
	}
}

// printFloor prints the floor's figures and, with the baseline's CPU per
// account over every process of its phase (baseAll > 0) on the workers'
// store kind (baseName pgstore), the ceiling of River's ratio to it; it
// adds them to figs.
func printFloor(out io.Writer, f floorResult, baseAll float64, baseName string, figs *figures) {
	per := float64(max(f.jobs, 1))
	rate := per / f.span.Seconds()
	fmt.Fprintf(out, "River alone (-floor: %d jobs that do nothing, the same worker processes, jobs at once and fetch settings): inserted in %v, %.0f jobs/s over the jobs' span (%v), all done %v after the workers' start\n",
		f.jobs, f.insertTook.Round(time.Millisecond), rate, f.span.Round(10*time.Millisecond), f.enginesStart.Round(10*time.Millisecond))
	figs.add("River alone: jobs/s over the jobs' span", "jobs/s", rate)
	figs.add("River alone: CPU per job, the workers", "ms", ms(f.workers)/per)
	if f.pgErr != nil {
		fmt.Fprintf(out, "River alone, CPU per job: worker processes %.3f ms, this process (the insert) %.3f ms; PostgreSQL's not measured (%v)\n",
			ms(f.workers)/per, ms(f.sched)/per, f.pgErr)
		return
	}
	floorAll := ms(f.all()) / per
	fmt.Fprintf(out, "River alone, CPU per job: worker processes %.3f ms, this process (the insert) %.3f ms, PostgreSQL %.3f ms; every process %.3f ms\n",
		ms(f.workers)/per, ms(f.sched)/per, ms(f.pg)/per, floorAll)
	figs.add("River alone: CPU per job, PostgreSQL", "ms", ms(f.pg)/per)
	figs.add("River alone: CPU per job, every process", "ms", floorAll)
	if baseAll <= 0 {
		return
	}
	if baseName != basePgstore {
		// River keeps its state in PostgreSQL: against a baseline on
		// another store, its store's round trips are missing from the sum.
		fmt.Fprintf(out, "ceiling of River's ratio: against a baseline on the workers' store only (-baseline-store pgstore)\n")
		return
	}
	ceiling := baseAll / (baseAll + floorAll)
	fmt.Fprintf(out, "ceiling of River / baseline %s on busy cores: %.2f ms / (%.2f + %.2f ms) = %.2f (the baseline's CPU per account over every process, plus River's alone per job)\n",
		baseName, baseAll, baseAll, floorAll, ceiling)
	figs.add("ceiling of River / baseline "+baseName+" (CPU: baseline / (baseline + River alone))", "", ceiling)
}
