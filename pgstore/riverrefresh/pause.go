package riverrefresh

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A 429 with Retry-After pauses the bank's queue in River (every engine
// stops taking its jobs) until the time the bank gave. The end is kept in
// the bank's Sessions store (pauseKey), so that any engine resumes the
// queue when it has passed, even when the one that paused it died: each
// engine looks every resumeEvery. A queue an operator paused (River's UI)
// has no such key and is left alone.

// resumeEvery is how often an engine looks for pauses that have ended.
const resumeEvery = time.Second

// A pause ends at most client.RetryAfterCap after it starts, whatever
// the bank's Retry-After said (client.Error.RetryAfter bounds it; pause
// bounds it again, since the end is stored and outlives a restart), and a
// stored end further ahead than that (written by an older release, or
// garbage) counts as ended.

// pauseKey is the store key of the end of bank's pause.
func pauseKey(bank string) string { return "riverrefresh/pause/" + bank }

// pause pauses b's queue until until (on the system clock), at most
// client.RetryAfterCap from now, once per pause in this engine.
func (e *Engine) pause(ctx context.Context, b *bank, until time.Time) {
	now := time.Now()
	limit := now.Add(client.RetryAfterCap)
	if until.After(limit) {
		until = limit
	}
	if !until.After(now) {
		return
	}
	for {
		last := b.pausedTo.Load()
		if last >= until.UnixNano() {
			return
		}
		if b.pausedTo.CompareAndSwap(last, until.UnixNano()) {
			break
		}
	}
	ctx = context.WithoutCancel(ctx)
	v := []byte(strconv.FormatInt(until.UnixNano(), 10))
	err := b.Sessions.Update(ctx, pauseKey(b.name), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if found {
			if n, err := strconv.ParseInt(string(old), 10, 64); err == nil && n >= until.UnixNano() && n <= limit.UnixNano() {
				return old, time.Until(time.Unix(0, n)) + time.Hour, nil
			}
		}
		return v, time.Until(until) + time.Hour, nil
	})
	if err != nil {
		return // the job is snoozed all the same
	}
	if err := e.client.QueuePause(ctx, queueOf(b.name), nil); err != nil {
		return
	}
	e.event(Event{Bank: b.name, Kind: "paused", Until: until})
}

// resumeLoop resumes the queues whose pause has ended, until Stop.
func (e *Engine) resumeLoop() {
	defer close(e.done)
	t := time.NewTicker(resumeEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		for _, b := range e.banks {
			e.resumeIfDue(context.Background(), b)
		}
	}
}

// resumeIfDue resumes b's queue when the pause recorded in the store
// has ended. The order keeps every pause another engine records
// meanwhile (pause: its end stored, then the queue paused):
//
//  1. the end read is deleted only if it is still the one stored, in one
//     store step (a compare-and-delete through Update): a new pause
//     stored since is kept, and the queue is not resumed;
//  2. the queue is resumed (when that fails, the end is put back, unless
//     a new one was stored: the next look resumes it);
//  3. the store is read again: a pause stored after step 1 may have
//     paused the queue before step 2 resumed it, so the queue is paused
//     again while a stored pause lasts (its own end resumes it later).
//
// So a stored end is never deleted unless it has passed, and a queue
// paused by pause always has a stored end that resumes it.
func (e *Engine) resumeIfDue(ctx context.Context, b *bank) {
	key := pauseKey(b.name)
	raw, err := b.Sessions.Get(ctx, key)
	if err != nil {
		return // none stored (store.ErrNotStored), or the store failed: next time
	}
	if !pauseEnded(raw, time.Now()) {
		return
	}
	err = b.Sessions.Update(ctx, key, func(cur []byte, found bool) ([]byte, time.Duration, error) {
		if !found || !bytes.Equal(cur, raw) {
			return nil, 0, errPauseChanged
		}
		return nil, 0, nil
	})
	if err != nil {
		return // a new pause (or another engine's resume), or the store failed
	}
	if err := e.client.QueueResume(ctx, queueOf(b.name), nil); err != nil {
		_ = b.Sessions.Update(ctx, key, func(cur []byte, found bool) ([]byte, time.Duration, error) {
			if found {
				return nil, 0, errPauseChanged
			}
			return raw, time.Hour, nil
		})
		return
	}
	if lasts, ok := e.storedPause(ctx, b); ok && lasts {
		_ = e.client.QueuePause(ctx, queueOf(b.name), nil)
	}
}

// errPauseChanged stops an Update of a pause's end: the stored end is not
// the one expected.
var errPauseChanged = errors.New("riverrefresh: the stored pause changed")

// storedPause reports whether a pause of b is stored and lasts (ok is
// false when the store could not say).
func (e *Engine) storedPause(ctx context.Context, b *bank) (lasts, ok bool) {
	raw, err := b.Sessions.Get(ctx, pauseKey(b.name))
	if errors.Is(err, store.ErrNotStored) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	return !pauseEnded(raw, time.Now()), true
}

// pauseEnded reports whether the stored end of a pause, raw, has passed
// at now: it has when it is unreadable, or further ahead than a pause can
// last (client.RetryAfterCap).
func pauseEnded(raw []byte, now time.Time) bool {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > now.Add(client.RetryAfterCap).UnixNano() {
		return true
	}
	return !now.Before(time.Unix(0, n))
}
