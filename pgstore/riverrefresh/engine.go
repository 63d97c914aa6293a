package riverrefresh

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/internal/pgretry"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
)

// Bank is one bank the engine refreshes accounts at.
type Bank struct {
	// Service reads the bank's accounts and counts their without-PSU
	// budget in its client's store; give every replica a client on one
	// shared store (the pgstore Store).
	Service *accounts.Service
	// Sessions is the store holding the bank's PSU sessions (sca.SaveSession),
	// the accounts they remember included.
	Sessions store.Store
	// Workers is the most jobs of the bank this engine runs at once; 0:
	// 4. River's worker limit of the bank's queue is Workers +
	// Config.FetchAhead: the jobs beyond Workers wait in the engine.
	Workers int
	// Options configure the bank's refresh.Refresher; the engine adds
	// refresh.WithMaxWait(0) (a pause is River's: the queue is paused)
	// and the spacing of Config.Spacing. With refresh.WithSync the
	// results Config.Handle receives carry the transaction sync's lists
	// (refresh.Result.Sync); with refresh.WithDeltaHook each job's delta
	// is also given to a consumer such as reconcile.Reconciler.Observe
	// before the job completes; with refresh.WithRounds each job's round
	// is reported.
	Options []refresh.Option
}

// Config configures an [Engine].
type Config struct {
	// Pool is the PostgreSQL pool of River's tables.
	Pool *pgxpool.Pool
	// Schema is the schema of River's tables ("": the search path).
	Schema string
	// Banks are the banks by name: 1 to 32 lower-case letters, digits,
	// "-" or "_". The name names the bank's queue ("psd2_refresh_" and
	// the name) and is written in each job.
	Banks map[string]Bank
	// Work makes this engine work jobs; Schedule makes it enqueue the
	// rounds (any number of engines may schedule, each round is enqueued
	// once). A scheduler-only process sets Schedule alone. River runs
	// periodic jobs on its elected leader only, which may be any engine:
	// every engine inserts the schedule's periodic jobs when it leads
	// (ScheduleEvery and CleanupEvery of its own Config: give every engine
	// the same), and an engine with Schedule runs them. With no engine
	// with Schedule running, one schedule job per bank waits for one.
	Work, Schedule bool
	// Spacing is the time between two rounds of an account
	// (refresh.DefaultSpacing when zero): 4 rounds a day.
	Spacing time.Duration
	// ScheduleEvery is how often the scheduler enqueues the current round
	// (15 minutes when zero); an account's job is unique per round, so
	// enqueuing often costs only the check.
	ScheduleEvery time.Duration
	// Prepare, when set, completes a job before it runs: it sets the
	// account's Cursor (which the TPP keeps). An error fails the job's
	// attempt (River retries it); River's record and log of the attempt
	// give the error's type (or the context's error it matches), not its
	// text, which may name an account.
	Prepare func(ctx context.Context, bank string, j *refresh.Job) error
	// Handle receives every result, on the worker's goroutine (the same
	// refresh.Result as refresh.Refresher.Run yields); keep its Cursor.
	// A panic of Prepare or Handle fails the job's attempt (River retries
	// it) and is logged at Error through Logger; neither the log nor
	// River's record of the attempt holds the panic's value (it may name
	// an account), only a runtime error's message or the value's type.
	Handle func(ctx context.Context, bank string, res refresh.Result)
	// Event, when set, is told of the jobs River cancels or discards and
	// of the queues it pauses. A panic of it is recovered and logged at
	// Error through Logger.
	Event func(Event)
	// Logger receives River's own log; nil: nothing is logged.
	Logger *slog.Logger
	// RescueAfter is how long a job may run before River takes its worker
	// for dead and runs it again elsewhere (River's
	// RescueStuckJobsAfter); 0: 5 minutes.
	RescueAfter time.Duration
	// JobTimeout bounds the run of one account's refresh job (0: 1
	// minute); the scheduler's job, which enqueues a whole round, is
	// bounded by ScheduleEvery.
	JobTimeout time.Duration
	// Middleware is River middleware the engine's River client runs
	// around every insert and every job it works, in order (River's
	// Config.Middleware): River's OpenTelemetry middleware
	// (github.com/riverqueue/rivercontrib/otelriver), for example. An
	// entry that is also a River hook (rivertype.Hook, as otelriver's
	// is) is installed as a hook too, as River's Config.Plugins would.
	// What the engine gives River names no account, PSU or session
	// (see the package doc), and so does what a middleware reads.
	Middleware []rivertype.Middleware
	// FetchCooldown is the least time between two fetches of jobs from a
	// bank's queue in this engine (River's QueueConfig.FetchCooldown).
	// A worker slot that frees while jobs wait runs its next job after
	// at most this long (plus the fetch), so a queue runs at most
	// Workers jobs per FetchCooldown and per job finished. 0:
	// DefaultFetchCooldown (20 ms), for refresh jobs of tens of
	// milliseconds with FetchAhead jobs at hand; River's own default is
	// 100 ms. From
	// MinFetchCooldown (1 ms, River's least) to MaxFetchCooldown (1 s),
	// and at most FetchPollInterval; else New returns a *ConfigError.
	FetchCooldown time.Duration
	// FetchPollInterval is how often a bank's queue looks for jobs when
	// nothing told it of any (River's QueueConfig.FetchPollInterval):
	// River's LISTEN/NOTIFY tells the queue of inserted jobs at once, and
	// a finished job that filled its fetch makes the queue fetch again,
	// so the poll is the fallback. 0: DefaultFetchPollInterval (250 ms;
	// River's default is 1 s). From FetchCooldown to
	// MaxFetchPollInterval (1 minute); else New returns a *ConfigError.
	//
	// River completes jobs in batches, off the worker's slot (its batch
	// completer writes every 250 ms, or at once when 100 wait); River
	// v0.51 has no setting for it.
	FetchPollInterval time.Duration
	// CompletedJobRetentionPeriod, CancelledJobRetentionPeriod and
	// DiscardedJobRetentionPeriod are how long River keeps a finished job
	// before its job cleaner (run by River's leader every 30 seconds)
	// deletes it: River's settings of the same names. 0: twice Spacing
	// for completed jobs (12 hours at 4 rounds a day: the round's job and
	// the one before); the longer of twice Spacing and
	// DefaultCancelledJobRetentionPeriod (24 hours) for cancelled ones
	// and DefaultDiscardedJobRetentionPeriod (7 days) for discarded ones.
	// Each must be at least Spacing (a job is unique per account and
	// round only while River keeps it: deleted within its round, the
	// account would be enqueued again) and at most MaxJobRetentionPeriod
	// (30 days); else New returns a *ConfigError. River's table then
	// holds about retention/Spacing jobs per account.
	CompletedJobRetentionPeriod time.Duration
	CancelledJobRetentionPeriod time.Duration
	DiscardedJobRetentionPeriod time.Duration
	// CleanupEvery is how often the scheduler (an engine with Schedule,
	// once across the replicas; see Work) deletes the expired
	// values of the banks' stores with [Engine.Cleanup]: budget windows
	// that ended, pending SCAs never completed. 0: DefaultCleanupEvery (1
	// hour); negative: never (call Engine.Cleanup or the store's Cleanup
	// yourself). From MinCleanupEvery (1 minute) to MaxCleanupEvery (24
	// hours); else New returns a *ConfigError. An expired value is
	// invisible at once; the sweep only frees its row.
	CleanupEvery time.Duration
	// FetchAhead is how many refresh jobs of a bank's queue beyond its
	// Workers this engine takes from River at once (River's
	// QueueConfig.MaxWorkers is Workers + FetchAhead); the engine runs
	// at most Workers of them, the others wait in the engine for a
	// worker to end. River fetches jobs only for its free slots, when a
	// job ends and the fetch it last made filled them, and a fetch
	// query under load takes milliseconds: without jobs at hand, a
	// worker that ends waits for a fetch of its own, and one ending
	// during another fetch waits for the next job's end. With jobs at
	// hand it starts the next at once while River fetches. 0:
	// DefaultFetchAhead (8); negative: none (River's fetch alone). At
	// most MaxFetchAhead (100); else New returns a *ConfigError. A job
	// waits at most half the time between JobTimeout and RescueAfter
	// (River counts it from its fetch, rescues it after RescueAfter),
	// then is snoozed back to the queue without counting an attempt;
	// with RescueAfter equal to JobTimeout there is no fetch-ahead.
	// The jobs at hand are River's running ones: an engine that dies
	// leaves them to River's rescue, after RescueAfter, as its running
	// ones.
	FetchAhead int
}

// The bounds and defaults of Config.FetchCooldown and
// Config.FetchPollInterval. A cooldown below 1 ms River refuses; one above
// a second caps a queue far below what a bank serves. A poll above a
// minute would leave jobs waiting long whenever a notification is lost.
//
// The default cooldown goes with DefaultFetchAhead: with jobs at hand a
// worker that ends does not wait for a fetch, so the cooldown sets how
// many jobs a fetch brings, not how long a slot waits. Each fetch is one
// query that updates the rows it takes (0.3 to 0.4 ms of the server's
// time with a few thousand jobs waiting). Over rounds of 10,000 accounts
// on 2 engines of 4 workers (PostgreSQL and every process on 2 shared
// cores), 20 ms with 8 ahead made 2,280 to 3,160 fetches a round against
// 5,730 to 5,830 with 5 ms and 4 ahead, the server's CPU per account
// was lower in 8 of 9 pairs of rounds, and River reached 0.86 (median;
// 0.79-1.00) of the in-process refresher on the same store against 0.83
// (0.73-0.89); the median wait from a job's end to the slot's next job
// was 0.03 ms against 0.11 ms.
const (
	DefaultFetchCooldown     = 20 * time.Millisecond
	MinFetchCooldown         = time.Millisecond
	MaxFetchCooldown         = time.Second
	DefaultFetchPollInterval = 250 * time.Millisecond
	MaxFetchPollInterval     = time.Minute
)

// The default and bound of Config.FetchAhead. 8 is twice a bank's
// default Workers: what the default cooldown's fetch brings, at hand
// (see DefaultFetchCooldown). Over rounds of 2,000 accounts on 2 engines
// of 4 workers (PostgreSQL and every process on 2 shared cores, load 9 to
// 14), a worker waited 0.11 to 0.15 ms (medians; p90 3 to 11 ms) from a
// job's end to its next job with 4 ahead, against 8.5 to 17.8 ms (p90 27
// to 52 ms) with none, and River's time per account was 11% less (the
// median of 6 pairs of rounds run back to back: 20% less to 2% more).
const (
	DefaultFetchAhead = 8
	MaxFetchAhead     = 100
)

// ErrInvalidConfig is the error of a Config that New refuses; every such
// error is a *ConfigError that wraps it.
var ErrInvalidConfig = errors.New("riverrefresh: invalid Config")

// ConfigError is the error of a Config field out of its bounds.
type ConfigError struct {
	// Field is the field's name in Config ("FetchCooldown").
	Field string
	// Value is the field's value, for a duration; Count for a count
	// (FetchAhead).
	Value time.Duration
	Count int
	// Reason says what the field must be.
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Field == "FetchAhead" {
		return fmt.Sprintf("riverrefresh: Config.%s %d: %s", e.Field, e.Count, e.Reason)
	}
	return fmt.Sprintf("riverrefresh: Config.%s %v: %s", e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// fetchAhead returns cfg's FetchAhead, the default applied and none
// (0) for a negative one, or the *ConfigError of one above its bound.
func fetchAhead(cfg Config) (int, error) {
	switch v := cfg.FetchAhead; {
	case v == 0:
		return DefaultFetchAhead, nil
	case v < 0:
		return 0, nil
	case v > MaxFetchAhead:
		return 0, &ConfigError{Field: "FetchAhead", Count: v,
			Reason: fmt.Sprintf("must be 0 (%d), negative (none) or at most %d", DefaultFetchAhead, MaxFetchAhead)}
	default:
		return v, nil
	}
}

// fetchSettings returns cfg's fetch settings, defaults applied, or the
// *ConfigError of one out of its bounds.
func fetchSettings(cfg Config) (cooldown, poll time.Duration, err error) {
	cooldown, poll = cfg.FetchCooldown, cfg.FetchPollInterval
	if cooldown == 0 {
		cooldown = DefaultFetchCooldown
	}
	if poll == 0 {
		poll = max(DefaultFetchPollInterval, cooldown)
	}
	switch {
	case cooldown < MinFetchCooldown || cooldown > MaxFetchCooldown:
		return 0, 0, &ConfigError{Field: "FetchCooldown", Value: cfg.FetchCooldown,
			Reason: fmt.Sprintf("must be 0 (%v) or from %v to %v", DefaultFetchCooldown, MinFetchCooldown, MaxFetchCooldown)}
	case poll < cooldown || poll > MaxFetchPollInterval:
		return 0, 0, &ConfigError{Field: "FetchPollInterval", Value: cfg.FetchPollInterval,
			Reason: fmt.Sprintf("must be 0 (%v) or from FetchCooldown (%v) to %v", DefaultFetchPollInterval, cooldown, MaxFetchPollInterval)}
	}
	return cooldown, poll, nil
}

// Event is a job the engine ended for good, or a bank's queue paused. It
// names no account, PSU or session.
type Event struct {
	// Bank is the job's bank ("" for a job whose bank is not one of the
	// engine's).
	Bank string
	// Kind is "cancelled" (ReconnectNeeded: the PSU must consent again),
	// "discarded" (Refused: the bank refused the call, or the job can
	// never run: its arguments do not decode, its bank is not one of the
	// engine's, its session key is invalid) or "paused" (the bank's 429
	// with Retry-After; the queue resumes at Until). A cancelled or
	// discarded job is ended through River's JobCancel, never retried:
	// River shows it as cancelled, its error naming the reason.
	Kind string
	// Outcome is the job's outcome (zero for "paused").
	Outcome refresh.Outcome
	// Status and Code are the bank's HTTP status and error code, when the
	// bank answered: the code is one of the interface's codes, or "OTHER"
	// for anything else the bank put there (client.SafeCode).
	Status int
	Code   string
	// JobID is River's id of the job (0 for "paused").
	JobID int64
	// Until is when a paused queue resumes.
	Until time.Time
}

// Engine runs the refresh of every remembered account of every bank on
// River, over PostgreSQL. Make one with [New] in every replica; call
// [Engine.Migrate] (every replica may, at start), then [Engine.Start].
type Engine struct {
	cfg    Config
	client *river.Client[pgx.Tx]
	// queues are the configs of the queues the engine gave River.
	queues map[string]river.QueueConfig
	// gate runs at most a bank's Workers of the jobs River hands it.
	gate  *gate
	banks map[string]*bank
	// cleaners are the banks' stores Cleanup sweeps.
	cleaners []Cleaner
	// retention is what the engine gave River: the retention periods.
	retention [3]time.Duration
	stop      chan struct{}
	done      chan struct{}
	// releaseWait is releaseTimeout.
	releaseWait time.Duration
}

// bank is a Bank as the engine runs it.
type bank struct {
	Bank
	name string
	r    *refresh.Refresher
	// budget is the without-PSU budget of Service's client: its clock
	// and the bank's pause.
	budget *budget.Budget
	// queueMu serialises this engine's pauses and resumes of the bank's
	// queue; pausedFor and resumedFor (UnixNano) are the ends of the last
	// pauses it paused the queue for and resumed it after (see pause.go).
	queueMu               sync.Mutex
	pausedFor, resumedFor int64
	// leftoverDone is set once this engine has looked for a queue left
	// paused by engines that stopped during a pause (resumeLeftover),
	// under queueMu.
	leftoverDone bool
	// breakerProbe is the latest next-probe time (UnixNano) this engine
	// read of the bank's open circuit breaker: the end of the breaker's
	// pause once it has closed (see pause.go).
	breakerProbe atomic.Int64
	// breakerRead is when (UnixNano, system clock) this engine last read
	// the bank's stored breaker (see resumeEvery).
	breakerRead atomic.Int64
	// pauseSource replaces the budget's pause in tests (nil: the budget's).
	pauseSource func(context.Context) (time.Time, bool)
}

var bankName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// queueOf is the River queue of bank name.
func queueOf(name string) string { return "psd2_refresh_" + name }

// New returns an engine for cfg, or the error of an invalid cfg.
func New(cfg Config) (*Engine, error) {
	if cfg.Pool == nil {
		return nil, errors.New("riverrefresh: Config.Pool is nil")
	}
	if len(cfg.Banks) == 0 {
		return nil, errors.New("riverrefresh: Config.Banks is empty")
	}
	if cfg.Spacing <= 0 {
		cfg.Spacing = refresh.DefaultSpacing
	}
	if cfg.ScheduleEvery <= 0 {
		cfg.ScheduleEvery = 15 * time.Minute
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = 5 * time.Minute
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var err error
	if cfg.FetchCooldown, cfg.FetchPollInterval, err = fetchSettings(cfg); err != nil {
		return nil, err
	}
	completed, cancelled, discarded, err := jobRetention(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.CleanupEvery, err = cleanupEvery(cfg); err != nil {
		return nil, err
	}
	if cfg.FetchAhead, err = fetchAhead(cfg); err != nil {
		return nil, err
	}
	// A job waiting for a worker counts toward RescueAfter: it waits at
	// most half the time its run leaves (gate).
	g := &gate{slots: map[string]chan struct{}{}, wait: (cfg.RescueAfter - cfg.JobTimeout) / 2}
	if g.wait <= 0 {
		cfg.FetchAhead = 0
	}
	e := &Engine{cfg: cfg, banks: map[string]*bank{}, releaseWait: releaseTimeout}
	workers := river.NewWorkers()
	queues := map[string]river.QueueConfig{}
	var periodic []*river.PeriodicJob
	for name, b := range cfg.Banks {
		if !bankName.MatchString(name) {
			return nil, fmt.Errorf("riverrefresh: bank name %q: needs 1 to 32 of a-z, 0-9, - and _", name)
		}
		if b.Sessions == nil {
			return nil, fmt.Errorf("riverrefresh: bank %s: no Sessions store", name)
		}
		if b.Workers <= 0 {
			b.Workers = 4
		}
		opts := append(append([]refresh.Option{}, b.Options...), refresh.WithMaxWait(0), refresh.WithSpacing(cfg.Spacing))
		r, err := refresh.New(b.Service, opts...)
		if err != nil {
			return nil, fmt.Errorf("riverrefresh: bank %s: %w", name, err)
		}
		e.banks[name] = &bank{Bank: b, name: name, r: r, budget: budget.Of(b.Service.Client())}
		if cfg.Work {
			// A refresh job takes tens of milliseconds: River's default
			// cooldown between fetches (100 ms) would cap a queue at a
			// few batches of Workers jobs per second. FetchAhead jobs
			// more are fetched than run at once (gate).
			if cfg.FetchAhead > 0 {
				g.slots[queueOf(name)] = make(chan struct{}, b.Workers)
			}
			queues[queueOf(name)] = river.QueueConfig{MaxWorkers: b.Workers + cfg.FetchAhead, FetchCooldown: cfg.FetchCooldown,
				FetchPollInterval: cfg.FetchPollInterval}
		}
		// Every engine declares the schedule's periodic jobs, whether it
		// schedules or not: River inserts periodic jobs on its leader
		// only, and any engine may be elected. They go to scheduleQueue,
		// which only an engine with Schedule works.
		args := ScheduleArgs{Bank: name}
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(cfg.ScheduleEvery),
			func() (river.JobArgs, *river.InsertOpts) { return args, scheduleInsertOpts() },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	// Registered in every engine: River inserts only the kinds its
	// client knows (a scheduler's too); only the queues of an engine with
	// Work are worked, and scheduleQueue only by one with Schedule.
	river.AddWorker(workers, &refreshWorker{e: e})
	river.AddWorker(workers, &scheduleWorker{e: e})
	if cfg.CleanupEvery > 0 {
		river.AddWorker(workers, &cleanupWorker{e: e})
		periodic = append(periodic, river.NewPeriodicJob(river.PeriodicInterval(cfg.CleanupEvery),
			func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, scheduleInsertOpts() },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	if cfg.Schedule {
		queues[scheduleQueue] = river.QueueConfig{MaxWorkers: 1}
	}
	e.cleaners = cleanersOf(e.banks)
	rc := &river.Config{Schema: cfg.Schema, Logger: cfg.Logger, PeriodicJobs: periodic,
		RescueStuckJobsAfter: cfg.RescueAfter, JobTimeout: cfg.JobTimeout, Workers: workers,
		Middleware:                  slices.Clone(cfg.Middleware),
		CompletedJobRetentionPeriod: completed, CancelledJobRetentionPeriod: cancelled,
		DiscardedJobRetentionPeriod: discarded}
	if len(g.slots) > 0 {
		rc.Middleware = append([]rivertype.Middleware{g}, rc.Middleware...)
	}
	for _, m := range cfg.Middleware {
		if h, ok := m.(rivertype.Hook); ok {
			rc.Hooks = append(rc.Hooks, h)
		}
	}
	if len(queues) > 0 {
		rc.Queues = queues
	}
	client, err := river.NewClient(riverpgxv5.New(cfg.Pool), rc)
	if err != nil {
		return nil, fmt.Errorf("riverrefresh: %w", err)
	}
	e.client, e.queues, e.gate = client, queues, g
	e.retention = [3]time.Duration{rc.CompletedJobRetentionPeriod, rc.CancelledJobRetentionPeriod, rc.DiscardedJobRetentionPeriod}
	return e, nil
}

// scheduleQueue is the queue of the scheduler's periodic jobs.
const scheduleQueue = "psd2_refresh_schedule"

// scheduleInsertOpts are the insert options of the periodic jobs: in
// scheduleQueue, and unique among those not yet run, so that a leader
// without a scheduler to work them (every engine Work only for a while)
// leaves one per bank waiting, not one per ScheduleEvery.
func scheduleInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: scheduleQueue, UniqueOpts: river.UniqueOpts{ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}}}
}

// Migrate creates or updates River's tables in the configured schema (which
// must exist). Every replica may call it at start, at the same time: it
// holds a PostgreSQL advisory lock of the schema (pg_advisory_lock, on a
// connection of its own outside the pool) while River's migrator runs, so
// one replica migrates and the others wait, then find nothing to do.
// River's migrator alone races itself: two replicas create the same table.
// The lock ends with the call, or with the connection if the process dies.
// Tables a newer River migrated (a version of River's main line this
// River does not know) are refused with an error and left as they are.
func (e *Engine) Migrate(ctx context.Context) error {
	m, err := rivermigrate.New(riverpgxv5.New(e.cfg.Pool), &rivermigrate.Config{Schema: e.cfg.Schema,
		Logger: e.cfg.Logger})
	if err != nil {
		return fmt.Errorf("riverrefresh: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, e.cfg.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("riverrefresh: migrate: %w", err)
	}
	defer func() {
		cctx, cancel := e.releaseContext(ctx)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	key := migrateLockKey(e.cfg.Schema)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return fmt.Errorf("riverrefresh: migrate: taking the lock: %w", err)
	}
	defer func() {
		uctx, cancel := e.releaseContext(ctx)
		defer cancel()
		_, _ = conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", key)
	}()
	latest := 0
	for _, v := range m.AllVersions() {
		latest = max(latest, v.Version)
	}
	if err := e.checkRiverVersion(ctx, conn, latest); err != nil {
		return err
	}
	// River's migrator runs its statements on the pool: after a restart
	// of the database the first of them meets a dead idle connection and
	// fails unsent. It runs again as a whole (pgretry.Idempotent): a run
	// that never reached the server changed nothing, and one that did (a
	// migration version is a transaction of its own) leaves the next run
	// only what is left, under the lock held above.
	err = pgretry.Idempotent(ctx, e.cfg.Pool, func() error {
		_, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("riverrefresh: migrate: %w", err)
	}
	return nil
}

// checkRiverVersion refuses a schema whose River tables a newer River
// migrated: a version of River's main line above latest, the newest this
// River knows. River's migrator finds nothing to apply there and says
// nothing, and this River's client would then work on tables it does
// not know. It reads on conn, which holds Migrate's lock.
func (e *Engine) checkRiverVersion(ctx context.Context, conn *pgx.Conn, latest int) error {
	table := e.table("river_migration")
	var exists, lines bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
		return fmt.Errorf("riverrefresh: migrate: reading River's version: %w", err)
	}
	if !exists {
		return nil
	}
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass
		AND attname = 'line' AND NOT attisdropped)`, table).Scan(&lines); err != nil {
		return fmt.Errorf("riverrefresh: migrate: reading River's version: %w", err)
	}
	q := `SELECT coalesce(max(version), 0) FROM ` + table
	if lines {
		q += ` WHERE line = 'main'`
	}
	var v int
	if err := conn.QueryRow(ctx, q).Scan(&v); err != nil {
		return fmt.Errorf("riverrefresh: migrate: reading River's version: %w", err)
	}
	if v > latest {
		return fmt.Errorf("riverrefresh: migrate: River's tables are at version %d, newer than this River's %d: a newer release migrated them; left as they are", v, latest)
	}
	return nil
}

// releaseTimeout bounds each step of Migrate's release of its lock (the
// unlock, then the close of its connection, which ends the lock too).
// They run even when Migrate's context has ended; a slow or hung
// database is given up on after it, so that Migrate returns.
const releaseTimeout = 10 * time.Second

// releaseContext is ctx without its end and with the releaseTimeout bound
// (e.releaseWait: a test's may be shorter).
func (e *Engine) releaseContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.releaseWait)
}

// migrateLockKey is the key of the advisory lock that serialises the
// Migrate calls of one schema across every replica ("" : the search
// path's, one key for all of them).
func migrateLockKey(schema string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("github.com/tppkit/psd2/pgstore/riverrefresh migrate " + schema))
	return int64(h.Sum64())
}

// schemaName names the configured schema for an error: quoted, or the
// search path's when none is configured.
func (e *Engine) schemaName() string {
	if e.cfg.Schema == "" {
		return "of the search path"
	}
	return fmt.Sprintf("%q", e.cfg.Schema)
}

// Client returns the engine's River client (for River's UI, or to list
// jobs).
func (e *Engine) Client() *river.Client[pgx.Tx] { return e.client }

// Start starts working and scheduling, as configured, until [Engine.Stop].
// An engine with Config.Schedule inserts each bank's schedule job before
// it returns (see scheduleNow), so that the current round is enqueued at
// once rather than when River's leader starts its periodic jobs.
// On a schema without River's tables (Engine.Migrate never run there)
// it returns an error that says so and names Migrate.
func (e *Engine) Start(ctx context.Context) error {
	if err := e.client.Start(ctx); err != nil {
		if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42P01" {
			return fmt.Errorf("riverrefresh: River's tables are missing in schema %s: run Engine.Migrate before Start: %w",
				e.schemaName(), err)
		}
		return fmt.Errorf("riverrefresh: %w", err)
	}
	e.stop, e.done = make(chan struct{}), make(chan struct{})
	go e.resumeLoop(e.stop, e.done)
	if e.cfg.Schedule {
		e.scheduleNow(ctx)
	}
	return nil
}

// scheduleNow inserts each bank's schedule job, as River's periodic job
// does (with scheduleInsertOpts: one per bank while it waits or runs, so
// an engine started again, or several schedulers started together, add
// none). River inserts periodic jobs on its leader only, after a random
// pause of up to a second once it is elected and the start of its
// enqueuer: 2.1 s after the election in one logged round, every worker
// idle meanwhile. The periodic job stays (RunOnStart too, for a leader
// elected later): when it finds the job this inserted still waiting or
// running it adds none, and a second run of a round already enqueued
// reads the sessions and inserts nothing. A failed insert is left to the
// periodic job: Start does not fail for it, as the engine runs without
// it.
func (e *Engine) scheduleNow(ctx context.Context) {
	params := make([]river.InsertManyParams, 0, len(e.banks))
	for _, name := range slices.Sorted(maps.Keys(e.banks)) {
		params = append(params, river.InsertManyParams{Args: ScheduleArgs{Bank: name}, InsertOpts: scheduleInsertOpts()})
	}
	err := pgretry.Idempotent(ctx, e.cfg.Pool, func() error { // unique: inserted once however often
		_, err := e.client.InsertMany(ctx, params)
		return err
	})
	if err != nil {
		e.cfg.Logger.WarnContext(ctx, "riverrefresh: the schedule jobs were not inserted at start; River's periodic job will insert them",
			slog.String("error", err.Error()))
	}
}

// Stop stops the engine: it takes no more jobs and waits for those
// running (or ctx).
func (e *Engine) Stop(ctx context.Context) error {
	if e.stop != nil {
		close(e.stop)
		select {
		case <-e.done:
		case <-ctx.Done():
			// The loop's look is bounded (lookTimeout) and cancelled by
			// the close: it ends soon; Stop does not wait past ctx.
		}
		e.stop = nil
	}
	return e.client.Stop(ctx)
}

// Round is the number of the round of time t: rounds are Spacing long,
// counted from the Unix epoch.
func (e *Engine) Round(t time.Time) int64 {
	return t.UnixNano() / int64(e.cfg.Spacing)
}

// Pool returns the pool of River's tables.
func (e *Engine) Pool() *pgxpool.Pool { return e.cfg.Pool }

// roundStart is the time round r starts.
func (e *Engine) roundStart(r int64) time.Time {
	return time.Unix(0, r*int64(e.cfg.Spacing))
}
