package refresh

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/tppkit/psd2/client"
)

// Round is the report of one account's refresh, a job that was due,
// given to the function of [WithRounds] when the job ends: what a
// metrics exporter counts (rounds done, snoozed and failed) and how late
// the round started. It holds no id.
type Round struct {
	// Outcome is how the job ended.
	Outcome Outcome
	// Planned is when the account was due: its last refresh
	// ([Cursor.RefreshedAt]) plus the spacing ([WithSpacing]); Started
	// for a first refresh, a forced one and without spacing.
	Planned time.Time
	// Started is when the job started.
	Started time.Time

	// putOff: a Transient job put off until the bank may answer (see
	// Class), which a job engine snoozes.
	putOff bool
}

// Class names the outcome as metrics count rounds: "done" ([Done]),
// "snoozed" (put off until the budget allows: [BudgetExhausted]; or
// [Transient] put off until the bank may answer: its circuit breaker
// open (client.ErrBankUnavailable), its pause ([ErrPaused]), its 429
// with Retry-After; what a job engine snoozes) or "failed" (the others).
// These are the values of the otel module's RoundResult.
func (r Round) Class() string {
	switch {
	case r.Outcome == Done:
		return "done"
	case r.Outcome == BudgetExhausted, r.Outcome == Transient && r.putOff:
		return "snoozed"
	}
	return "failed"
}

// putOff reports whether res, [Transient], was put off until the bank
// may answer rather than failed by it: the bank's circuit breaker was
// open or its pause ran (nothing sent), or it answered 429 with a
// Retry-After (a rate limit); RetryAt says until when.
func putOff(res *Result) bool {
	if res.Outcome != Transient || res.RetryAt.IsZero() {
		return false
	}
	if errors.Is(res.Err, ErrPaused) || errors.Is(res.Err, client.ErrBankUnavailable) {
		return true
	}
	status, _ := errorCode(res.Err)
	return status == http.StatusTooManyRequests
}

// Late is how late the round started after it was planned; never
// negative.
func (r Round) Late() time.Duration { return max(r.Started.Sub(r.Planned), 0) }

// WithRounds calls fn with the [Round] of every job that was due when it
// ends ([Refresher.Run] and [Refresher.Refresh] alike, so also on a job
// engine such as the pgstore module's riverrefresh), on the job's
// goroutine: fn must be safe for concurrent use and quick. A panic of fn
// is recovered and logged at Error ([WithLogger]; slog's default logger
// without one); the job's result stands. A job put
// off because the account was refreshed less than the spacing ago
// ([Result.Deferred]) is not a round and is not reported. Wire it to
// the otel module's metrics with
//
//	refresh.WithRounds(func(ctx context.Context, r refresh.Round) {
//		obs.RecordRefreshRound(ctx, otel.RoundResult(r.Class()), r.Planned, r.Started)
//	})
func WithRounds(fn func(context.Context, Round)) Option {
	return func(r *Refresher) error {
		if fn == nil {
			return errors.New("refresh: WithRounds(nil)")
		}
		r.round = fn
		return nil
	}
}

// reportRound gives the round of job j, started at started and ended
// with res, to the function of WithRounds.
func (r *Refresher) reportRound(ctx context.Context, j *Job, started time.Time, res *Result) {
	if r.round == nil || res.Deferred {
		return
	}
	planned := started
	if r.spacing > 0 && !j.Force && !j.Cursor.RefreshedAt.IsZero() {
		planned = j.Cursor.RefreshedAt.Add(r.spacing)
	}
	defer func() {
		if v := recover(); v != nil {
			r.logPanic(ctx, "refresh: WithRounds function panicked", v)
		}
	}()
	r.round(ctx, Round{Outcome: res.Outcome, Planned: planned, Started: started, putOff: putOff(res)})
}
