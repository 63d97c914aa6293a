package riverrefresh

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// gate is the engine's own River middleware, outermost (before
// Config.Middleware): of the Workers + FetchAhead refresh jobs River hands
// a bank's queue at once, it runs at most Workers, the others waiting for
// one to end (Config.FetchAhead). River counts a job from its fetch, so a
// job waiting here counts toward RescueAfter, not JobTimeout (River starts
// the job's timeout inside the middleware).
type gate struct {
	river.MiddlewareDefaults
	// slots hold a token per refresh job running, by queue; a queue with
	// no fetch-ahead has none.
	slots map[string]chan struct{}
	// wait bounds a job's wait for a slot: half the time between
	// JobTimeout and RescueAfter, so that the wait and the job's run
	// end before River would take the job for stuck and run it again.
	wait time.Duration
}

// Work runs doInner once the job's queue has a slot free. A job that
// waits longer than the gate's wait (every slot's job slow: the bank is)
// or whose context ends first is snoozed, not run: River puts it back in
// its queue for any engine, without counting an attempt.
func (g *gate) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	s, ok := g.slots[job.Queue]
	if !ok || job.Kind != (Args{}).Kind() {
		return doInner(ctx)
	}
	select {
	case s <- struct{}{}:
	default:
		t := time.NewTimer(g.wait)
		defer t.Stop()
		select {
		case s <- struct{}{}:
		case <-t.C:
			return snooze(0)
		case <-ctx.Done():
			return snooze(0)
		}
	}
	defer func() { <-s }()
	return doInner(ctx)
}
