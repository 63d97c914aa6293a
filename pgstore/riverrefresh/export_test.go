package riverrefresh

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Internals the external tests drive directly.

// SetPauseSource makes src the bank's pause in place of its budget's
// (budget.Budget.PausedUntil), as the engine reads it.
func (e *Engine) SetPauseSource(bank string, src func(context.Context) (time.Time, bool)) {
	e.banks[bank].pauseSource = src
}

// ObservePause pauses bank's queue when its pause runs, as the engine does
// after each job.
func (e *Engine) ObservePause(ctx context.Context, bank string) {
	e.observePause(ctx, e.banks[bank], false)
}

// ResumeIfDue mirrors bank's pause onto its queue, as the engine's resume
// loop does every resumeEvery.
func (e *Engine) ResumeIfDue(ctx context.Context, bank string) {
	e.resumeIfDue(ctx, e.banks[bank])
}

// MaxSnooze is the longest snooze of a job.
const MaxSnooze = maxSnooze

// QueueConfig returns the config the engine gave River for bank's queue
// (false: the engine works no queue of bank).
func (e *Engine) QueueConfig(bank string) (river.QueueConfig, bool) {
	q, ok := e.queues[queueOf(bank)]
	return q, ok
}

// Retention returns the retention periods the engine gave River:
// completed, cancelled, discarded.
func (e *Engine) Retention() [3]time.Duration { return e.retention }

// CleanupEvery returns the engine's CleanupEvery, the default applied.
func (e *Engine) CleanupEvery() time.Duration { return e.cfg.CleanupEvery }

// Gate returns the engine's middleware that runs at most a bank's Workers
// jobs at once, and how long a job waits in it for a worker.
func (e *Engine) Gate() (rivertype.WorkerMiddleware, time.Duration) { return e.gate, e.gate.wait }

// SetReleaseWait shortens the bound of each step of Migrate's release of
// its lock (releaseTimeout) for a test of a hung database.
func (e *Engine) SetReleaseWait(d time.Duration) { e.releaseWait = d }
