package refresh

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/internal/panicvalue"
)

// Run refreshes the accounts of jobs on the Refresher's workers and
// yields each account's [Result] as soon as it is done, in the order they
// finish.
//
// Memory stays flat however many jobs there are: the sequence is read one
// job ahead of the workers (the next job waits for a free worker), and a
// result is handed to the loop and forgotten. A job read ahead when the
// run stops is dropped without a call (a prepare function of [JobsFrom]
// has seen it). Nothing is fetched until the loop starts.
// The jobs sequence is read on the goroutine that ranges over Run,
// between the loop's bodies, never at the same time as one: a prepare
// function of [JobsFrom] may read what the loop writes (a map of
// cursors) without locking. Breaking out of the loop stops the run: no
// further job is taken, the calls in flight are cancelled (a call
// cancelled before it was sent gives its budget call back) and Run
// returns once its goroutines have ended. A panic in the jobs sequence,
// in the [WithProgress] function or in the loop's body reaches the
// caller unchanged and stops the run the same way, except that the
// goroutines end in the background, shortly after: a recovered panic (a
// net/http handler's) leaves none behind.
//
// Every job ends with exactly one [Outcome]; the errors of the jobs are
// in their results. Run yields an error, once and last, only for the run
// itself: ctx ended (after the results of the jobs in flight), or jobs is
// nil.
func (r *Refresher) Run(ctx context.Context, jobs iter.Seq[Job]) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		if r == nil {
			yield(Result{}, errNilRefresher)
			return
		}
		if jobs == nil {
			yield(Result{}, errors.New("refresh: Run needs a sequence of jobs"))
			return
		}
		run, stop := context.WithCancel(ctx)
		defer stop()
		next, done := iter.Pull(jobs)
		defer done()

		in := make(chan Job) // unbuffered: a job leaves the sequence for a free worker
		out := make(chan Result, r.workers)
		var inFlight atomic.Int64
		var wg sync.WaitGroup
		for range r.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range in {
					inFlight.Add(1)
					res := r.refreshWithin(run, j)
					inFlight.Add(-1)
					out <- res
				}
			}()
		}
		go func() {
			wg.Wait()
			close(out)
		}()

		feeding, stopped, finished := true, false, false
		defer func() {
			if finished {
				return
			}
			// A panic (in the jobs sequence, the progress callback or
			// the loop's body) leaves the loop: stop feeding, cancel the
			// calls in flight and read the workers' last results in the
			// background, so that no goroutine of the run is left
			// blocked sending them.
			if feeding {
				close(in)
			}
			stop()
			go func() {
				for range out {
				}
			}()
		}()
		start := time.Now()
		var p Progress
		job, more := next()
		for {
			if feeding && (!more || run.Err() != nil) {
				feeding = false
				close(in)
				done()
			}
			var send chan Job // nil, never ready, once feeding stopped
			if feeding {
				send = in
			}
			var res Result
			var ok bool
			select {
			case send <- job:
				p.Started++
				job, more = next()
				continue
			case res, ok = <-out:
			case <-run.Done():
				if feeding {
					continue // stop feeding, at the top
				}
				res, ok = <-out
			}
			if !ok { // every worker is gone
				finished = true
				p.InFlight, p.Elapsed = 0, time.Since(start)
				r.log.LogAttrs(ctx, slog.LevelInfo, "refresh run ended", slog.Any("progress", p))
				if !stopped && ctx.Err() != nil {
					yield(Result{}, ctx.Err())
				}
				return
			}
			if stopped {
				continue // drain until the workers are gone
			}
			p.add(&res)
			p.InFlight, p.Elapsed = int(inFlight.Load()), time.Since(start)
			if r.progress != nil {
				r.progress(p)
			}
			r.logResult(ctx, &res)
			if !yield(res, nil) {
				stopped = true
				stop()
			}
		}
	}
}

// logResult logs a result at Debug level, without ids.
func (r *Refresher) logResult(ctx context.Context, res *Result) {
	if !r.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{slog.String("outcome", res.Outcome.String()), slog.Int("calls", res.Calls),
		slog.Bool("card", res.Job.Card())}
	if status, code := errorCode(res.Err); status != 0 {
		attrs = append(attrs, slog.Int("status", status), slog.String("code", code))
	}
	if !res.RetryAt.IsZero() {
		attrs = append(attrs, slog.Time("retryAt", res.RetryAt))
	}
	r.log.LogAttrs(ctx, slog.LevelDebug, "account refreshed", attrs...)
}

// logPanic logs a recovered panic v at Error, with its stack, to the
// Refresher's logger, or slog's default logger when [WithLogger] gave
// none: a recovered panic is never silent. Of v it logs a runtime
// error's message or v's type only (panicvalue.Describe): v is the
// TPP's code's, and may hold an account id.
func (r *Refresher) logPanic(ctx context.Context, msg string, v any) {
	l := r.log
	if !r.logSet {
		l = slog.Default()
	}
	l.LogAttrs(ctx, slog.LevelError, msg, slog.String("panic", panicvalue.Describe(v)), slog.String("stack", string(debug.Stack())))
}

// refreshWithin is Refresh, bounded by the Refresher's job timeout.
//
// It runs on a worker, a goroutine Run starts, where a panic would end
// the process: a panic of the job (the TPP's code it calls, a store's)
// is recovered, logged at Error, and ends the job [Transient] with an
// error wrapping ErrHookPanicked.
func (r *Refresher) refreshWithin(ctx context.Context, j Job) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			r.logPanic(ctx, "refresh: job panicked", v)
			res = Result{Job: j, Cursor: j.Cursor, Outcome: Transient, Err: fmt.Errorf("%w: %s", ErrHookPanicked, panicvalue.Describe(v))}
		}
	}()
	if r.jobTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.jobTimeout)
		defer cancel()
	}
	return r.Refresh(ctx, j)
}
