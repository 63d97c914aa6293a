package refresh

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/txsync"
)

// Refresher refreshes accounts in the background, without the PSU, within
// the without-PSU budget of an [accounts.Service]. Make one with [New] and
// start a refresh with [Refresher.Run]. A Refresher is safe for
// concurrent use.
type Refresher struct {
	svc     *accounts.Service
	budget  *budget.Budget
	workers int
	spacing time.Duration
	maxWait time.Duration
	// jobTimeout bounds each job of Run (WithJobTimeout).
	jobTimeout time.Duration
	progress   func(Progress)
	sync       *txsync.Syncer
	onDelta    func(context.Context, *txsync.Delta) error
	round      func(context.Context, Round)
	log        *slog.Logger
	logSet     bool // WithLogger gave log (logPanic)
	now        func() time.Time
}

// Option configures a [Refresher] in [New]; an invalid one makes New
// return an error.
type Option func(*Refresher) error

// DefaultSpacing is the least time between two refreshes of an account
// that a job does not force: the time a call counts against the
// without-PSU budget (its window and the margin for clock differences
// between replicas, budget.ClockMargin) over its limit: (24 hours
// + 5 minutes) / 4 calls = 6 hours 1 minute 15 seconds, docs/interface.md
// section 8. An account's 4 daily calls are so spread over the day
// instead of spent in the morning, and a refresh one spacing after the
// 4th finds the first call no longer counted.
const DefaultSpacing = (budget.DefaultWindow + budget.ClockMargin) / budget.DefaultLimit

// DefaultMaxWait is the longest pause after a 429 with Retry-After that
// workers sit out before sending again; a longer one makes the jobs that
// meet it end [Transient] at once, with the time to come back.
const DefaultMaxWait = 30 * time.Second

// maxWorkers bounds [WithWorkers].
const maxWorkers = 1024

// WithWorkers sets how many accounts are refreshed at once: 1 to 1024.
// The default, runtime.GOMAXPROCS(0), keeps the cores busy signing (each
// call is an RSA signature, which is most of a refresh's CPU) without
// piling up requests that only wait for a core and add latency. Raise it
// when the calls wait on something else than this process's CPU: a
// remote bank's latency, a store that syncs to disk. A goroutine waiting
// in a file sync keeps its scheduler slot (P) until the Go runtime takes
// it back, so with store.FileStore more workers help little on their
// own: in BenchmarkRefresh (2 cores, 10,000 accounts, the bank in the
// same process) 3 workers gave the same throughput as 2, and
// GOMAXPROCS=3 with 3 workers about 5% more. With the bank in a process
// of its own (examples/internal/storeratio, 2 cores, later rounds), 8
// workers refreshed about 25% more accounts a second than 2, on the
// memory store and on the file store alike; a bank across a network
// waits longer still.
func WithWorkers(n int) Option {
	return func(r *Refresher) error {
		if n < 1 || n > maxWorkers {
			return fmt.Errorf("refresh: WithWorkers(%d): needs 1 to %d", n, maxWorkers)
		}
		r.workers = n
		return nil
	}
}

// WithSpacing sets the least time between two refreshes of an account
// that a job does not force ([Job.Force]), measured from the job's
// [Cursor.RefreshedAt]. A job met sooner ends [BudgetExhausted] with
// [Result.Deferred] set and the time it is due, without a call. The
// default is [DefaultSpacing]; give the window plus
// budget.ClockMargin over the limit of a client whose budget was made
// with budget.WithLimit, or 0 to refresh an account whenever its budget
// allows. d must not be negative. Each job claims its account for the
// spacing (budget.ReserveRequest.Claim), at most budget.MaxClaim (less
// budget.ClockMargin).
func WithSpacing(d time.Duration) Option {
	return func(r *Refresher) error {
		if d < 0 {
			return fmt.Errorf("refresh: WithSpacing(%v): negative", d)
		}
		r.spacing = d
		return nil
	}
}

// WithMaxWait sets the longest pause after a 429 with Retry-After that
// a job sits out before its reservation and before each of its calls
// ([DefaultMaxWait]; budget.ReserveRequest.MaxWait); a longer pause ends
// the jobs that meet it [Transient] at once, with [ErrPaused]. d must not
// be negative; 0 never waits (a job engine that pauses its queue).
func WithMaxWait(d time.Duration) Option {
	return func(r *Refresher) error {
		if d < 0 {
			return fmt.Errorf("refresh: WithMaxWait(%v): negative", d)
		}
		r.maxWait = d
		return nil
	}
}

// DefaultJobTimeout bounds each job of [Refresher.Run]: its wait for the
// bank's pause, its calls and its store work together. A bank or a
// database that stops answering holds a worker no longer: the job ends
// [Transient] and the run goes on. It is generous, so that an account's
// first sync of many pages ends; riverrefresh bounds its jobs with its
// own JobTimeout, and [Refresher.Refresh] with the caller's context.
const DefaultJobTimeout = 10 * time.Minute

// WithJobTimeout replaces [DefaultJobTimeout]; 0 leaves a job of Run
// bounded only by the run's context (the calls have their own time
// limits, the store's work none). d must not be negative.
func WithJobTimeout(d time.Duration) Option {
	return func(r *Refresher) error {
		if d < 0 {
			return fmt.Errorf("refresh: WithJobTimeout(%v): negative", d)
		}
		r.jobTimeout = d
		return nil
	}
}

// WithProgress calls fn with the run's counts after every result, before
// the result is yielded, on the goroutine that ranges over
// [Refresher.Run]. fn must be quick (throttle a display yourself); it
// needs no locking.
func WithProgress(fn func(Progress)) Option {
	return func(r *Refresher) error {
		if fn == nil {
			return errors.New("refresh: WithProgress(nil)")
		}
		r.progress = fn
		return nil
	}
}

// WithLogger logs the run to l: each result at Debug level (its outcome,
// the HTTP status and error code of a failure: one of the interface's
// codes or "OTHER", client.SafeCode), a pause for a 429 at Warn, and a
// summary at Info when the run ends. No account id, PSU-ID or session id,
// and no code a bank made up, is ever logged. Without it the Refresher
// logs nothing but a recovered panic of a job or of the [WithRounds]
// function, which goes to slog's default logger.
func WithLogger(l *slog.Logger) Option {
	return func(r *Refresher) error {
		if l == nil {
			return errors.New("refresh: WithLogger(nil)")
		}
		r.log, r.logSet = l, true
		return nil
	}
}

// WithSync applies every complete transactions read to s, the
// transaction sync of package txsync, and sets [Result.Sync] to its
// added, changed and removed entries: entries a TPP stores by the
// sync's keys stay true when the bank changes a booked entry's id, books
// a pending one under another id and amount, or lists identical twins
// (see txsync). The TPP links each consent's accounts first
// ([txsync.Syncer.Link], right after listing them); a job for an account
// the sync never linked ends [Refused] with txsync.ErrNotLinked, without
// a call. A job's query starts early enough for the sync's overlap
// window ([txsync.Syncer.ResourceFrom]; never older than the bank gives
// without the PSU). A read cut short (at the most entries a job reads)
// is not applied: the job ends [Refused] with [ErrReadTooLarge],
// Result.Sync stays nil, and the cursor is kept. A
// failed write of the sync's state ends the job as the store's error does
// ([Transient]), the cursor not advanced. Without it Result.Sync is nil.
func WithSync(s *txsync.Syncer) Option {
	return func(r *Refresher) error {
		if s == nil {
			return errors.New("refresh: WithSync(nil)")
		}
		r.sync = s
		return nil
	}
}

// WithDeltaHook has each job that applied its read to the sync
// ([WithSync], which it needs) call fn with the delta, an empty one
// included, before the job ends: one option that feeds every account a
// refresh reads to a consumer of deltas, such as reconcile.Reconciler's
// Observe. The River engine of module pgstore takes it among a bank's
// refresh options.
//
// txsync reports a booking once, so a delta fn refused is not read
// again: fn is called up to [DeltaHookAttempts] times, and when it
// fails on each the job ends as the error does (a store's error:
// [Transient]), with the delta in Result.Sync for the caller to give
// again (fn must take a delta twice: reconcile's does).
func WithDeltaHook(fn func(context.Context, *txsync.Delta) error) Option {
	return func(r *Refresher) error {
		if fn == nil {
			return errors.New("refresh: WithDeltaHook(nil)")
		}
		r.onDelta = fn
		return nil
	}
}

// DeltaHookAttempts is how many times a job calls the [WithDeltaHook]
// function with its delta before it ends with the function's error.
const DeltaHookAttempts = 3

// New returns a Refresher that reads accounts through svc and counts
// against the without-PSU budget of svc's client (budget.Of, in the
// client's store; it takes its clock from that client). It returns an
// error for a nil svc or an invalid option.
func New(svc *accounts.Service, opts ...Option) (*Refresher, error) {
	if svc == nil || svc.Client() == nil {
		return nil, errors.New("refresh: New needs an accounts.Service made with accounts.New")
	}
	r := &Refresher{svc: svc, budget: budget.Of(svc.Client()), workers: runtime.GOMAXPROCS(0), spacing: DefaultSpacing,
		maxWait: DefaultMaxWait, jobTimeout: DefaultJobTimeout, log: slog.New(slog.DiscardHandler), now: svc.Client().Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(r); err != nil {
			return nil, err
		}
	}
	if r.onDelta != nil && r.sync == nil {
		return nil, errors.New("refresh: WithDeltaHook needs WithSync: the deltas are the sync's")
	}
	return r, nil
}

// errNilRefresher is the error of a nil *Refresher.
var errNilRefresher = errors.New("refresh: nil Refresher (use New)")
