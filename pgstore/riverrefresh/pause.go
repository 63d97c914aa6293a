package riverrefresh

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore/internal/pgretry"
	"github.com/tppkit/psd2/store"
)

// The bank's pause is the budget's (budget.Budget.PausedUntil): a 429 with
// Retry-After pauses the bank for every service of the client and, through
// the shared store, for every replica within a second. The engine mirrors
// it onto River: it pauses the bank's queue (every engine stops taking its
// jobs) while the pause runs, and resumes it when the pause has ended. The
// budget reports an ended pause for an hour, and each engine looks every
// resumeEvery, so any living engine resumes the queue within about two
// seconds of the end, even when the one that paused it died.
//
// Each engine keeps, per bank, the end of the last pause it paused the
// queue for (pausedFor: once per pause, not once per job) and the end of
// the last pause it resumed the queue after (resumedFor), and does both
// under one lock, reading the pause again under it:
//
//   - the end an engine resumes after is the one it read as ended before
//     QueueResume, never one read later: a 429 that lands between the
//     resume and this bookkeeping leaves a pause the engine has not
//     resumed after, which its next look resumes when it ends;
//   - an engine never pauses the queue for a pause it already resumed
//     after (the pause read under the lock is the latest; the budget's
//     end only grows), so a pause whose QueuePause comes late is resumed
//     by the same engine;
//   - a pause recorded after the resume read the pause may have paused
//     the queue before QueueResume ran: after the resume the pause is read
//     again, and the queue paused again if one runs; every look also
//     pauses the queue for a running pause the engine has not paused for.
//
// River keeps a queue paused across restarts (river_queue.paused_at),
// the budget reports a pause for an hour after its end only: a queue
// paused when every engine stopped, and still paused when one starts
// after that hour, would stay paused for ever. So an engine records the
// end of each pause it pauses the queue for in the client's store
// (pauseRecord), and an engine that finds no pause running resumes,
// once after it starts (leftoverDone), a queue River paused before the
// recorded end (within pauseClockMargin): the engines paused it, and the
// pause is over.
//
// A queue an operator paused (River's UI) is resumed only at the end of a
// bank's pause that an engine sees end: within the hour the budget
// reports it, or when an engine starts and the queue was paused before
// the end of the last pause the engines paused it for. ASSUMPTION (the
// safe option): an operator who pauses a queue during a bank's pause, or
// in the hour after one, pauses it again.

// The bank's circuit breaker (client.Client.StoredBreaker, shared
// through the store) pauses the queue too: while it is open, until its
// next probe, so that no job of the bank is taken only to fail fast. When
// the probe time comes the queue resumes and the first job is the probe;
// a failed probe sets a later one, which pauses the queue again; a
// breaker that closed ends its pause at the last probe time the engine
// read. The pause the engine mirrors is the later of the budget's and the
// breaker's, so its end only grows, as the bookkeeping above needs.

// resumeEvery is how often an engine looks at the banks' pauses. It is
// also the age of the stored breaker a job that ended Done may go on: the
// check after each job reads the breaker from the store at most once per
// resumeEvery (breakerPause), as the client's breakers read each other's
// (once a second), rather than once per job, which was one more round
// trip to the database per job. A job that ended otherwise reads it at
// once: the breaker may just have opened.
const resumeEvery = time.Second

// pausedUntil is the bank's pause: the budget's (budget.Budget.PausedUntil),
// unless a test replaced it. A store that cannot be read leaves the pause
// the budget knows. With cached, the breaker read less than resumeEvery
// ago may serve (see breakerPause).
func (b *bank) pausedUntil(ctx context.Context, cached bool) (time.Time, bool) {
	if b.pauseSource != nil {
		return b.pauseSource(ctx)
	}
	until, paused, _ := b.budget.PausedUntil(ctx)
	probe, open := b.breakerPause(ctx, cached)
	switch {
	case open && (!paused || probe.After(until)):
		return probe, true
	case paused:
		return until, true
	case probe.After(until):
		return probe, false
	}
	return until, paused
}

// breakerPause is the pause of the bank's circuit breaker: until its next
// probe while it is open and the probe is ahead, else the last probe time
// read (an ended pause; zero when the breaker never opened). A store that
// cannot be read leaves the last one read, ended. With cached, a read
// less than resumeEvery old serves: the pause is then the last probe time
// read, open while it is ahead.
func (b *bank) breakerPause(ctx context.Context, cached bool) (time.Time, bool) {
	now := time.Now().UnixNano()
	if last := b.breakerRead.Load(); cached && last != 0 && now-last < int64(resumeEvery) {
		if p := b.breakerProbe.Load(); p != 0 {
			probe := time.Unix(0, p)
			return probe, probe.After(b.budget.Now())
		}
		return time.Time{}, false
	}
	state, _, probe, err := b.Service.Client().StoredBreaker(ctx)
	if err == nil {
		b.breakerRead.Store(now)
	}
	if err == nil && state != client.BreakerClosed && !probe.IsZero() {
		for {
			last := b.breakerProbe.Load()
			if probe.UnixNano() <= last || b.breakerProbe.CompareAndSwap(last, probe.UnixNano()) {
				break
			}
		}
		if probe.After(b.budget.Now()) {
			return probe, true
		}
	}
	if last := b.breakerProbe.Load(); last != 0 {
		return time.Unix(0, last), false
	}
	return time.Time{}, false
}

// observePause pauses b's queue when the bank's pause runs and this
// engine has not paused it for that pause yet: the check after each job,
// on a breaker read up to resumeEvery old when cached (a job that ended
// Done).
func (e *Engine) observePause(ctx context.Context, b *bank, cached bool) {
	until, paused := b.pausedUntil(ctx, cached)
	if !paused {
		return
	}
	b.queueMu.Lock()
	defer b.queueMu.Unlock()
	if until.UnixNano() <= b.pausedFor {
		return
	}
	// The job's context may have ended; the pause is made within
	// lookTimeout all the same.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookTimeout)
	defer cancel()
	e.pauseLocked(ctx, b)
}

// pauseLocked pauses b's queue for the pause running now, read again
// under b.queueMu (held), unless this engine paused it for that pause
// already.
func (e *Engine) pauseLocked(ctx context.Context, b *bank) {
	until, paused := b.pausedUntil(ctx, false)
	if !paused || until.UnixNano() <= b.pausedFor {
		return
	}
	b.recordPause(ctx, until)
	if err := e.queuePause(ctx, b); err != nil {
		return // the next job or look tries again
	}
	b.pausedFor = until.UnixNano()
	e.event(Event{Bank: b.name, Kind: "paused", Until: until})
}

// lookTimeout bounds one look of the resume loop at a bank (its reads of
// the pause and the breaker, and River's pause or resume of the queue):
// a slow or hung database delays the next look, never stops the loop or
// Stop for good. A look that gave up leaves the queue as it was; the next
// one tries again.
const lookTimeout = 10 * time.Second

// resumeLoop mirrors the banks' pauses onto their queues, until Stop.
// stop and done are Start's channels (Stop may end before the loop).
func (e *Engine) resumeLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTicker(resumeEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		for _, b := range e.banks {
			look, end := context.WithTimeout(ctx, lookTimeout)
			e.resumeIfDue(look, b)
			end()
		}
	}
}

// resumeIfDue resumes b's queue when the bank's latest pause has ended and
// this engine has not resumed the queue after it yet, and pauses it when a
// pause runs that this engine has not paused it for.
func (e *Engine) resumeIfDue(ctx context.Context, b *bank) {
	b.queueMu.Lock()
	defer b.queueMu.Unlock()
	until, paused := b.pausedUntil(ctx, false)
	if paused {
		e.pauseLocked(ctx, b)
		return
	}
	if !b.leftoverDone {
		b.leftoverDone = e.resumeLeftover(ctx, b)
	}
	end := until.UnixNano()
	if until.IsZero() || end <= b.resumedFor {
		return
	}
	if err := e.queueResume(ctx, b); err != nil {
		return // the next look tries again
	}
	b.resumedFor = end
	// A pause recorded since the read above may have paused the queue
	// (another engine's) before the resume: pause it again.
	e.pauseLocked(ctx, b)
}

// pauseRecordKept is how long the client's store keeps the end of the
// last pause an engine paused a bank's queue for (pauseRecord): longer
// than any pause (client.RetryAfterCap) and any outage of every engine
// worth resuming after.
const pauseRecordKept = 30 * 24 * time.Hour

// pauseClockMargin is the difference allowed between the engines'
// clocks, on which a pause's end is recorded, and the database's, on
// which River records when it paused a queue.
const pauseClockMargin = time.Minute

// pauseRecord is the key, in the store of the bank's client, of the end
// (UnixNano, system clock) of the latest pause an engine paused the
// bank's queue for.
func (b *bank) pauseRecord() string { return "riverrefresh/paused/" + b.name }

// clientStore is the store of the bank's client, nil when there is none.
func (b *bank) clientStore() store.Store {
	if b.Service == nil || b.Service.Client() == nil {
		return nil
	}
	return b.Service.Client().Store()
}

// recordPause records until as the end of the latest pause the bank's
// queue is paused for, unless a later one is recorded. A failure is left
// alone: the record matters only when every engine stops during the
// pause.
func (b *bank) recordPause(ctx context.Context, until time.Time) {
	st := b.clientStore()
	if st == nil {
		return
	}
	_ = st.Update(ctx, b.pauseRecord(), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if n, err := strconv.ParseInt(string(old), 10, 64); found && err == nil && n >= until.UnixNano() {
			return old, pauseRecordKept, nil
		}
		return []byte(strconv.FormatInt(until.UnixNano(), 10)), pauseRecordKept, nil
	})
}

// resumeLeftover resumes the bank's queue when River holds it paused
// from before the end of the last pause the engines paused it for
// (pauseRecord), which has ended: no pause runs (resumeIfDue). It
// reports whether it could tell (false: the store or River failed, the
// next look tries again).
func (e *Engine) resumeLeftover(ctx context.Context, b *bank) bool {
	st := b.clientStore()
	if st == nil {
		return true
	}
	raw, err := st.Get(ctx, b.pauseRecord())
	switch {
	case errors.Is(err, store.ErrNotStored):
		return true // the engines paused the queue for no pause
	case err != nil:
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return true // not a record of this engine's: nothing known
	}
	end := time.Unix(0, n)
	if time.Now().Before(end) {
		return false // the pause's own end resumes it
	}
	var q *rivertype.Queue
	err = pgretry.Idempotent(ctx, e.cfg.Pool, func() (err error) {
		q, err = e.client.QueueGet(ctx, queueOf(b.name))
		return err
	})
	switch {
	case errors.Is(err, river.ErrNotFound):
		return true
	case err != nil:
		return false
	case q.PausedAt == nil || q.PausedAt.After(end.Add(pauseClockMargin)):
		return true // running, or paused after the pause ended: an operator's
	}
	if err := e.queueResume(ctx, b); err != nil {
		return false
	}
	b.resumedFor = max(b.resumedFor, n)
	return true
}

// queuePause and queueResume pause and resume b's queue in River, again
// at once when a statement of it never reached the server (a dead idle
// connection after the database restarted): a pause or a resume run
// twice leaves the queue as one does (pgretry.Idempotent). Without it a
// restart delayed a bank's pause by a look of the resume loop.
func (e *Engine) queuePause(ctx context.Context, b *bank) error {
	return pgretry.Idempotent(ctx, e.cfg.Pool, func() error { return e.client.QueuePause(ctx, queueOf(b.name), nil) })
}

// queueResume: see queuePause.
func (e *Engine) queueResume(ctx context.Context, b *bank) error {
	return pgretry.Idempotent(ctx, e.cfg.Pool, func() error { return e.client.QueueResume(ctx, queueOf(b.name), nil) })
}
