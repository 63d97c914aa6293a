package accounts

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/client"
)

// The bank's request to slow down. A 429 with Retry-After that is not the
// end of an account's budget asks the TPP to send nothing to the bank for
// that long; so does a 429 ACCESS_EXCEEDED whose Retry-After is short
// (at most maxPauseAccessExceeded: a passing limit, not a day's budget).
// The Service records it the moment the answer arrives, whether the
// client then retries that call itself (the call's BeforeRetry) or ends
// it with the answer (the call's hook), and keeps it per bank and TPP
// (client.Client.Scope) for the whole process: every Service on a client
// of that bank, and so every refresh worker that calls it, sees the same
// pause ([Service.PausedUntil]). While it lasts, a retry of a call without
// the PSU waits for its end before it is sent.

// maxPauseAccessExceeded is the longest Retry-After of a 429
// ACCESS_EXCEEDED that pauses the bank: a longer one is the account's
// budget, which the budget itself keeps (exhaust).
const maxPauseAccessExceeded = minExhaustedWait

// pauses holds the end of each bank's pause (UnixNano in an
// *atomic.Int64), by client scope.
var pauses sync.Map

// pauseOf returns the pause cell of scope.
func pauseOf(scope string) *atomic.Int64 {
	if p, ok := pauses.Load(scope); ok {
		return p.(*atomic.Int64)
	}
	p, _ := pauses.LoadOrStore(scope, new(atomic.Int64))
	return p.(*atomic.Int64)
}

// pauseBank extends the pause of scope to now + d.
func pauseBank(scope string, now time.Time, d time.Duration) {
	if d <= 0 {
		return
	}
	p, until := pauseOf(scope), now.Add(d).UnixNano()
	for {
		cur := p.Load()
		if cur >= until || p.CompareAndSwap(cur, until) {
			return
		}
	}
}

// pausedUntil returns the end of the pause of scope when one is running.
func pausedUntil(scope string, now time.Time) (time.Time, bool) {
	p, ok := pauses.Load(scope)
	if !ok {
		return time.Time{}, false
	}
	n := p.(*atomic.Int64).Load()
	if n == 0 {
		return time.Time{}, false
	}
	t := time.Unix(0, n)
	return t, now.Before(t)
}

// slowDown returns how long the bank asked to pause after an answer of
// status with a Retry-After of retryAfter: a 429, when it is not
// ACCESS_EXCEEDED with a long Retry-After; 0 otherwise.
func slowDown(status int, retryAfter time.Duration, accessExceeded bool) time.Duration {
	if status != http.StatusTooManyRequests || retryAfter <= 0 {
		return 0
	}
	if accessExceeded && retryAfter > maxPauseAccessExceeded {
		return 0
	}
	return retryAfter
}

// pauseAfter records the pause a call's final error asks for.
func (b *budget) pauseAfter(err error) {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return
	}
	now := b.now()
	ra, ok := ce.RetryAfter(now)
	if !ok {
		return
	}
	pauseBank(b.scope, time.Now(), slowDown(ce.StatusCode, ra, ce.Is(client.ErrAccessExceeded)))
}

// pauseFrom records the pause asked by the answer a retry follows and
// reports whether there was one: ACCESS_EXCEEDED or not, a Retry-After
// the client honours is short; the caller waits it out, and so should
// the others.
func (b *budget) pauseFrom(call *client.Call) bool {
	if call.RetryStatus != http.StatusTooManyRequests || call.RetryAfter <= 0 {
		return false
	}
	pauseBank(b.scope, time.Now(), call.RetryAfter)
	return true
}

// pauseBeforeRetry records the pause asked by the answer a retry follows
// (the client waits the Retry-After itself), or waits for the end of a
// pause another call started.
func (b *budget) pauseBeforeRetry(ctx context.Context, call *client.Call) error {
	if b.pauseFrom(call) {
		return nil
	}
	until, ok := pausedUntil(b.scope, time.Now())
	if !ok {
		return nil
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PausedUntil reports whether the bank asked the TPP to slow down (a 429
// with Retry-After, or 429 ACCESS_EXCEEDED with a Retry-After of at most a
// minute) and, if so, until when, on the system clock. The pause is shared
// by every Service on a client of the same bank and TPP in this process,
// and starts when the answer arrives, even when the client then retries
// the call itself. The refresh package checks it before each call: no
// worker calls the bank during a pause.
func (s *Service) PausedUntil() (time.Time, bool) {
	if s == nil || s.c == nil {
		return time.Time{}, false
	}
	return pausedUntil(s.budget.scope, time.Now())
}
