package riverrefresh

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tppkit/psd2/store"
)

// The retention of River's finished jobs and the sweep of the store's
// expired values: what keeps the tables at a bounded number of rows per
// account, round after round (see the package doc, "Retention").
const (
	// DefaultCancelledJobRetentionPeriod is how long River keeps a
	// cancelled job (Config.CancelledJobRetentionPeriod 0), unless twice
	// Spacing is longer: an account that needs the PSU again or that the
	// bank refused, told to Config.Event when it ended; a day leaves it
	// in River's UI for the next working day. River's default.
	DefaultCancelledJobRetentionPeriod = 24 * time.Hour
	// DefaultDiscardedJobRetentionPeriod is how long River keeps a
	// discarded job (its attempts exhausted over days of failures: rare,
	// and worth a look), unless twice Spacing is longer. River's default.
	DefaultDiscardedJobRetentionPeriod = 7 * 24 * time.Hour
	// MaxJobRetentionPeriod bounds every retention: River's table is the
	// queue, not an archive (Config.Handle and Config.Event are where a
	// TPP keeps history), and its size per account is the retention
	// divided by Spacing (120 jobs at 30 days and 4 rounds a day).
	MaxJobRetentionPeriod = 30 * 24 * time.Hour
	// DefaultCleanupEvery is how often the scheduler sweeps the expired
	// values of the banks' stores (Config.CleanupEvery 0).
	DefaultCleanupEvery = time.Hour
	// MinCleanupEvery and MaxCleanupEvery bound Config.CleanupEvery.
	MinCleanupEvery = time.Minute
	MaxCleanupEvery = 24 * time.Hour
)

// uniqueStates are the states of a refresh job that keep another job of
// the same account and round from being enqueued (River's
// UniqueOpts.ByState): River's default states and the ends cancelled and
// discarded, so that an account has one job per round whatever its end.
// With River's default, a cancelled job's account (the PSU must consent
// again, the bank refused) was enqueued again by every scheduling of its
// round, every ScheduleEvery: a job and a row each time.
var uniqueStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStateCompleted, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled,
	rivertype.JobStateCancelled, rivertype.JobStateDiscarded,
}

// jobRetention returns the retention periods of cfg (Spacing set), the
// defaults applied, or the *ConfigError of one out of its bounds.
//
// A round's job must outlive its round: it is unique per account and
// round only while River keeps it (uniqueStates), and the scheduler
// enqueues the current round every ScheduleEvery; deleted earlier, the
// account would be enqueued and refreshed again in the same round. So
// every retention is at least Spacing. The completed default is twice
// Spacing (12 hours at 4 rounds a day): the round's job and one round
// more to look at, 2 to 3 completed jobs per account in River's table.
func jobRetention(cfg Config) (completed, cancelled, discarded time.Duration, err error) {
	// A Spacing above MaxJobRetentionPeriod (rounds more than 30 days
	// apart) raises the bound to Spacing.
	most := max(MaxJobRetentionPeriod, cfg.Spacing)
	pick := func(field string, v, def time.Duration) (time.Duration, error) {
		if v == 0 {
			return min(max(def, 2*cfg.Spacing), most), nil
		}
		if v < cfg.Spacing || v > most {
			return 0, &ConfigError{Field: field, Value: v,
				Reason: fmt.Sprintf("must be 0 or from Spacing (%v) to %v", cfg.Spacing, most)}
		}
		return v, nil
	}
	if completed, err = pick("CompletedJobRetentionPeriod", cfg.CompletedJobRetentionPeriod, 2*cfg.Spacing); err != nil {
		return 0, 0, 0, err
	}
	if cancelled, err = pick("CancelledJobRetentionPeriod", cfg.CancelledJobRetentionPeriod, DefaultCancelledJobRetentionPeriod); err != nil {
		return 0, 0, 0, err
	}
	if discarded, err = pick("DiscardedJobRetentionPeriod", cfg.DiscardedJobRetentionPeriod, DefaultDiscardedJobRetentionPeriod); err != nil {
		return 0, 0, 0, err
	}
	return completed, cancelled, discarded, nil
}

// cleanupEvery returns cfg's CleanupEvery, the default applied (0 for
// none), or its *ConfigError.
func cleanupEvery(cfg Config) (time.Duration, error) {
	switch v := cfg.CleanupEvery; {
	case v == 0:
		return DefaultCleanupEvery, nil
	case v < 0:
		return 0, nil
	case v < MinCleanupEvery || v > MaxCleanupEvery:
		return 0, &ConfigError{Field: "CleanupEvery", Value: v,
			Reason: fmt.Sprintf("must be 0 (%v), negative (none) or from %v to %v", DefaultCleanupEvery, MinCleanupEvery, MaxCleanupEvery)}
	default:
		return v, nil
	}
}

// Cleaner is a store that deletes its expired values on demand, as the
// pgstore Store does (pgstore.Store.Cleanup).
type Cleaner interface {
	Cleanup(ctx context.Context) (int64, error)
}

// cleanersOf returns the distinct stores of the banks (each client's
// store, each Sessions store) that are Cleaners.
func cleanersOf(banks map[string]*bank) []Cleaner {
	var out []Cleaner
	add := func(st store.Store) {
		c, ok := st.(Cleaner)
		if !ok {
			return
		}
		if t := reflect.TypeOf(c); t.Comparable() {
			for _, o := range out {
				if reflect.TypeOf(o) == t && o == c {
					return
				}
			}
		}
		out = append(out, c)
	}
	for _, b := range banks {
		if b.Service != nil && b.Service.Client() != nil {
			add(b.Service.Client().Store())
		}
		add(b.Sessions)
	}
	return out
}

// Cleanup deletes the expired values of the banks' stores that can (a
// [Cleaner], such as the pgstore Store: budget windows that ended,
// pending SCAs never completed) and returns how many it deleted. The
// scheduler runs it every Config.CleanupEvery, as River's leader; call it
// yourself when Config.CleanupEvery is negative. It deletes nothing that
// is still live: a budget's count stays until its window and the clock
// margin have passed.
func (e *Engine) Cleanup(ctx context.Context) (int64, error) {
	var (
		total int64
		errs  []error
	)
	for _, c := range e.cleaners {
		n, err := c.Cleanup(ctx)
		total += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return total, fmt.Errorf("riverrefresh: cleanup: %w", err)
	}
	return total, nil
}

// CleanupArgs are the arguments of the periodic job that sweeps the
// stores' expired values ([Engine.Cleanup]).
type CleanupArgs struct{}

// Kind is River's kind of a cleanup job.
func (CleanupArgs) Kind() string { return "psd2_refresh_cleanup" }

// UnmarshalJSON reads nothing: a cleanup job has no arguments, and one
// whose stored arguments are anything else (a row edited by hand) runs
// its sweep all the same, instead of failing River's decoding at each of
// its 25 attempts.
func (*CleanupArgs) UnmarshalJSON([]byte) error { return nil }

// cleanupWorker runs Engine.Cleanup.
type cleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	e *Engine
}

// Timeout is the engine's CleanupEvery: the next period sweeps again.
func (w *cleanupWorker) Timeout(*river.Job[CleanupArgs]) time.Duration { return w.e.cfg.CleanupEvery }

// Work sweeps the banks' stores (Engine.Cleanup). A panic of a store's
// Cleanup fails the attempt as a refresh job's does (recoverJob).
func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) (err error) {
	defer w.e.recoverJob(ctx, "cleanup", "", &err)
	_, err = w.e.Cleanup(ctx)
	return err
}
