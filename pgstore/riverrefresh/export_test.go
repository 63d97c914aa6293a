package riverrefresh

import (
	"context"
	"time"
)

// Internals the external tests drive directly.

// PauseKey is the store key of the end of bank's pause.
func PauseKey(bank string) string { return pauseKey(bank) }

// Pause pauses bank's queue until until, as a 429 with Retry-After does.
func (e *Engine) Pause(ctx context.Context, bank string, until time.Time) {
	e.pause(ctx, e.banks[bank], until)
}

// ResumeIfDue resumes bank's queue when its pause has ended, as the
// engine's resume loop does every resumeEvery.
func (e *Engine) ResumeIfDue(ctx context.Context, bank string) {
	e.resumeIfDue(ctx, e.banks[bank])
}

// MaxSnooze is the longest snooze of a job.
const MaxSnooze = maxSnooze
