// Package backoff is the one jittered exponential backoff and the one
// context-aware sleep of the module: the client's retries, payments'
// status polling, the journal's background writes, refresh's delta hook
// and pgstore's transaction retries all wait through it.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Exp is the ceiling of the wait before retry n (0-based): base·2ⁿ,
// capped at ceil (and ceil when base·2ⁿ overflows).
func Exp(n int, base, ceil time.Duration) time.Duration {
	d := ceil
	if n >= 0 && n < 62 {
		if e := base << n; e > 0 && e < d {
			d = e
		}
	}
	return d
}

// Jitter is a wait drawn in the upper half of d (d/2 to d), so that
// callers that failed together do not try again in step. A d of at most
// 1 ns is returned as it is.
func Jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// Sleep waits d and reports true, or reports false as soon as ctx ends
// (at once when it has ended already: a timer that is over by the time a
// busy goroutine looks at it never wins against an ended ctx).
func Sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return ctx.Err() == nil
	}
}
