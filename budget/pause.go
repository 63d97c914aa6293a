package budget

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// The bank's request to slow down. A 429 with a Retry-After that is not
// the end of an account's budget ([Budget.RateLimit]: any 429 with a
// Retry-After but an ACCESS_EXCEEDED asking for a window or more) asks
// the TPP to send nothing to the bank for that long. The budget records
// it the moment the answer arrives, whether the client then retries
// that call itself (the call's BeforeRetry) or ends it with the answer
// (the call's hook). The pause is the budget's, so the bank's and the
// TPP's (client.Client.Scope): every service of the client sees it at
// once, and it is kept in the client's store, so that every client on a
// shared store sees it within pauseReadEvery ([Budget.PausedUntil]).
// While it lasts, a retry of a call without the PSU waits for its end
// before it is sent.

// maxPauseAccessExceeded is the longest rate limit of a 429
// ACCESS_EXCEEDED that pauses the whole bank: a longer one is the
// account's own wait (its job comes back after it, refresh.Result's
// RetryAt, and the account's ledger in the store refuses the endpoint's
// calls until then, on every replica), so that one account's answer
// cannot stop every other.
const maxPauseAccessExceeded = time.Minute

// minRateLimitWait is the shortest wait the SDK takes from a rate
// limit's Retry-After: an answer asking to come back at once ("0") would
// otherwise send the next call into the same refusal. ASSUMPTION (the
// safe option): a second is short enough for any rate limit.
const minRateLimitWait = time.Second

// RateLimit is the SDK's one reading of a 429 (docs/interface.md section
// 8): it reports whether err is the bank's answer asking the TPP to slow
// down, rather than the end of an account's budget, and how long to
// wait. On this platform 429 ACCESS_EXCEEDED means both:
//
//   - with a Retry-After shorter than the budget's window, it is a rate
//     limit: the wait is the Retry-After, at least a second
//     (minRateLimitWait) and at most client.RetryAfterCap; the account's
//     budget is not marked spent; the bank is paused for the wait when it
//     is at most a minute (maxPauseAccessExceeded), and only the
//     account's endpoint waits for a longer one: its ledger refuses the
//     endpoint's calls until the wait and [ClockMargin] end, on every
//     client of the store, and then counts only the calls made;
//   - without a Retry-After, or with one of a window or more, it is the
//     account's budget, spent: the budget's ledger takes the calls the
//     SDK did not see as made, until the Retry-After or for a window
//     (refresh.BudgetExhausted).
//
// Any other 429 with a Retry-After is a rate limit too; a 429 of another
// code without one is neither (false).
func (b *Budget) RateLimit(err error) (time.Duration, bool) {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	wait, ok := ce.RetryAfter(time.Now())
	if !ok {
		return 0, false
	}
	if ce.Is(client.ErrAccessExceeded) && b != nil && wait >= b.window {
		return 0, false
	}
	return max(wait, minRateLimitWait), true
}

// pauseReadEvery is how often a budget reads the pause in its store: a
// pause another process recorded is seen within it, and a refresher that
// asks before every call costs one read a second, not one a call.
const pauseReadEvery = time.Second

// pauseKept is how long the store keeps a pause after its end, so that
// [Budget.PausedUntil] still reports it (as ended) to a job engine that
// resumes the work it paused.
const pauseKept = time.Hour

// pauseValue is the bank's pause as the store holds it, in the form
// "end/wait": end, UnixNano on the clock of the replica that wrote it,
// and wait, the longest (in nanoseconds) it may still run from the
// moment it was written, on any clock. A value of the earlier form, the
// end alone (an earlier version's write), has no wait (0): it is read as
// that version read it, until its end.
type pauseValue struct{ end, wait int64 }

// encode is v's stored form.
func (v pauseValue) encode() []byte {
	out := strconv.AppendInt(nil, v.end, 10)
	if v.wait > 0 {
		out = strconv.AppendInt(append(out, '/'), v.wait, 10)
	}
	return out
}

// parsePause reads a stored pause; an error when it is no pause of this
// form or the earlier one (a newer version's form, a garbled value).
func parsePause(raw []byte) (pauseValue, error) {
	endS, waitS, hasWait := strings.Cut(string(raw), "/")
	end, err := strconv.ParseInt(endS, 10, 64)
	if err != nil {
		return pauseValue{}, err
	}
	v := pauseValue{end: end}
	if hasWait {
		if v.wait, err = strconv.ParseInt(waitS, 10, 64); err != nil || v.wait <= 0 {
			return pauseValue{}, errUnreadablePause
		}
	}
	return v, nil
}

// sane reports whether v can be a pause a replica wrote: it ends no
// further ahead of now than the longest pause a bank can ask
// (client.RetryAfterCap) and an hour for the clock of the replica that
// wrote it, and its wait is no longer than that longest pause. Another
// was written by no replica with a sane clock, or is garbled: it is no
// pause, so that it can neither stop the bank's calls until then nor be
// carried forward by each later pause.
func (v pauseValue) sane(now time.Time) bool {
	return v.end <= now.Add(client.RetryAfterCap+time.Hour).UnixNano() && v.wait <= int64(client.RetryAfterCap)
}

// pauseEndSeen is the budget's one rule for the clocks of the bank's
// pause: the end, on this replica's clock, of the stored pause v that it
// reads at now for the first time. The pause's end was written on the
// writer's clock, which may run behind this one's by up to [ClockMargin]
// (the ledger's rule for every call counted): read as it is, a 30 s pause
// written by such a replica would be over at once here, and the bank
// called during it. So the pause holds until its end and ClockMargin, but
// never longer than its wait from now: it was written before now, so the
// bank's pause ends within its wait of now whatever the clocks. A replica
// that learns of a pause at once thus holds it for its wait on its own
// clock (its writer's clock does not matter), and one that learns of it
// later holds it at most its wait longer than the bank asked, never
// longer than the margin: a 1 s pause costs every replica at most 1 s
// more, not the margin. A value of the earlier form (no wait) holds
// until its end, as that version read it.
func pauseEndSeen(v pauseValue, now time.Time) int64 {
	if v.wait == 0 {
		return v.end
	}
	return min(v.end+int64(ClockMargin), now.UnixNano()+v.wait)
}

// errUnreadablePause is PausedUntil's error for a stored pause that is
// no time at all.
var errUnreadablePause = errors.New("budget: the bank's pause in the store is unreadable (a newer version's form?): whether the bank asked the TPP to slow down is unknown")

// pause is the budget's knowledge of the bank's pause.
type pause struct {
	// until is the end of the latest pause known, UnixNano on the system
	// clock; 0: none.
	until atomic.Int64
	// wrote is the latest end this budget wrote itself (UnixNano, system
	// clock): a pause that ends no later is in the store already.
	wrote atomic.Int64
	// readAt is when the store was last read (UnixNano, system clock).
	readAt atomic.Int64

	mu sync.Mutex
	// seen is the stored pause last read or written: a stored value is
	// taken into until once, when it is first met (pauseEndSeen).
	seen pauseValue
}

// raise extends until to n, when n is later.
func (p *pause) raise(n int64) {
	for cur := p.until.Load(); n > cur && !p.until.CompareAndSwap(cur, n); cur = p.until.Load() {
	}
}

// see takes the stored pause v, read at now, into until the first time
// it is met.
func (p *pause) see(v pauseValue, now time.Time) {
	p.mu.Lock()
	first := v != p.seen
	p.seen = v
	p.mu.Unlock()
	if first {
		p.raise(pauseEndSeen(v, now))
	}
}

// pauseKey is the store key of the end of the bank's pause.
func (b *Budget) pauseKey() string { return "budget/pause/" + b.scope }

// pauseBank extends the bank's pause to d from now, on the system clock:
// at once for this budget, and in the store for the others, with its
// wait (pauseValue, pauseEndSeen), so that a replica whose clock differs
// from this one's holds it as long. The store's write is best effort: a
// failed one leaves the pause to this process.
func (b *Budget) pauseBank(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	now := b.pauseNow()
	until := now.Add(d).UnixNano()
	b.pause.raise(until)
	for {
		cur := b.pause.wrote.Load()
		if cur >= until {
			return // a pause as long was written
		}
		if b.pause.wrote.CompareAndSwap(cur, until) {
			break
		}
	}
	b.settleWithin(ctx, func(ctx context.Context) {
		var wrote pauseValue
		var other int64 // the end of another's longer pause, on this clock
		err := b.st.Update(ctx, b.pauseKey(), func(old []byte, found bool) ([]byte, time.Duration, error) {
			v := pauseValue{end: until, wait: int64(d)}
			other = 0
			if o, err := parsePause(old); found && err == nil && o.sane(now) {
				// The other's pause as this replica holds it, from now: a
				// reader, which meets the value after now, holds it as long.
				other = pauseEndSeen(o, now)
				v.end, v.wait = max(v.end, o.end), max(v.wait, other-now.UnixNano())
			}
			wrote = v
			return v.encode(), time.Unix(0, v.end).Sub(now) + pauseKept, nil
		})
		if err == nil {
			b.pause.raise(other)
			b.pause.mu.Lock()
			b.pause.seen = wrote
			b.pause.mu.Unlock()
		}
	})
}

// pauseAfter records the pause a call's final error asks for.
func (b *Budget) pauseAfter(ctx context.Context, err error) {
	wait, ok := b.RateLimit(err)
	if !ok || b.accountRateLimit(err) {
		return // the account's own wait (its ledger holds it), not the bank's
	}
	b.pauseBank(ctx, wait)
}

// accountRateLimit reports whether err is a 429 ACCESS_EXCEEDED that
// [Budget.RateLimit] reads as a rate limit longer than
// maxPauseAccessExceeded: the account's own wait, not the bank's. The
// budget holds the account's endpoint until its end in the account's
// ledger (exhaustedAt), on the store, so that every replica, and a
// process started later, waits for it too.
func (b *Budget) accountRateLimit(err error) bool {
	wait, ok := b.RateLimit(err)
	var ce *client.Error
	return ok && errors.As(err, &ce) && ce.Is(client.ErrAccessExceeded) && wait > maxPauseAccessExceeded
}

// pauseFrom records the pause asked by the answer a retry follows and
// reports whether there was one: ACCESS_EXCEEDED or not, a Retry-After
// the client honours is short; the caller waits it out, and so should
// the others.
func (b *Budget) pauseFrom(ctx context.Context, call *client.Call) bool {
	if call.RetryStatus != http.StatusTooManyRequests || call.RetryAfter <= 0 {
		return false
	}
	b.pauseBank(ctx, call.RetryAfter)
	return true
}

// pauseBeforeRetry records the pause asked by the answer a retry follows
// (the client waits the Retry-After itself), or waits for the end of a
// pause another call started. A pause that ends after ctx's deadline
// refuses the retry at once with a *PausedError (the call ends with its
// last answer), rather than after a wait that could only end in the
// deadline.
func (b *Budget) pauseBeforeRetry(ctx context.Context, call *client.Call) error {
	if b.pauseFrom(ctx, call) {
		return nil
	}
	// A store that cannot be read leaves the pauses this budget knows.
	until, paused, _ := b.PausedUntil(ctx)
	if !paused {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && until.After(dl) {
		return &PausedError{Until: until}
	}
	t := time.NewTimer(until.Sub(b.pauseNow()))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitPause waits for the end of the bank's pause when it ends within
// maxWait, and returns a *PausedError at once when it ends later: the
// admission of a reservation and of the calls made with one. A store
// that cannot be read leaves the pauses this budget knows.
func (b *Budget) waitPause(ctx context.Context, maxWait time.Duration) error {
	until, paused, _ := b.PausedUntil(ctx)
	if !paused {
		return nil
	}
	wait := until.Sub(b.pauseNow())
	if dl, ok := ctx.Deadline(); wait > maxWait || ok && until.After(dl) {
		// Longer than the call may wait, or past its deadline (the
		// client's call timeout included): refused at once, not after a
		// wait that could only end in the deadline.
		return &PausedError{Until: until}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PausedUntil reports the end of the bank's latest pause, on the system
// clock, and whether it is still running. A pause another replica wrote
// is held on this one's clock for its wait from when this budget first
// read it, and at most until its end on the writer's clock and
// [ClockMargin] (pauseEndSeen): a replica whose clock differs from the
// writer's by up to the margin holds it until the bank's end, and at
// most the pause's own length longer. The bank pauses the TPP with a
// 429 that [Budget.RateLimit] reads as a rate limit; the pause starts when the answer arrives, even when the
// client then retries the call itself, and holds for every service of
// the client at once and, through the client's store, for every client
// on a shared store within a second (the budget reads the store at most
// once a second). A pause that ended is still reported, with false, for
// an hour. A reservation and the calls made with it wait for its end or
// are refused ([ReserveRequest.MaxWait]), so that no refresh worker
// calls the bank during a pause; a job engine pauses its queue with it.
// The error is the store's: the pause known so far is returned with it.
// A pause in the store that ends more than client.RetryAfterCap and an
// hour ahead (a replica's clock far ahead, a garbled value) is no pause.
// A stored value that is no time at all (a newer version's form, a
// garbled one) is no pause either, and is an error too, with the pause
// known so far: a tool that reports the pause (psd2 budget) must not
// read it as none.
func (b *Budget) PausedUntil(ctx context.Context) (until time.Time, paused bool, err error) {
	if b == nil {
		return time.Time{}, false, errNoBudget
	}
	now := b.pauseNow()
	if now.UnixNano()-b.pause.readAt.Load() >= int64(pauseReadEvery) {
		gctx, cancel := b.storeContext(ctx)
		raw, gerr := b.st.Get(gctx, b.pauseKey())
		cancel()
		switch {
		case errors.Is(gerr, store.ErrNotStored):
		case gerr != nil:
			err = fmt.Errorf("budget: store: %w", gerr)
		default:
			switch v, perr := parsePause(raw); {
			case perr != nil:
				err = errUnreadablePause
			case v.sane(now):
				b.pause.see(v, now)
			}
		}
		if err == nil {
			b.pause.readAt.Store(now.UnixNano())
		}
	}
	n := b.pause.until.Load()
	if n == 0 {
		return time.Time{}, false, err
	}
	until = time.Unix(0, n)
	return until, now.Before(until), err
}
