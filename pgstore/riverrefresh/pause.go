package riverrefresh

import (
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

// resumeIfDue resumes b's queue when the pause the engine recorded has
// ended.
func (e *Engine) resumeIfDue(ctx context.Context, b *bank) {
	raw, err := b.Sessions.Get(ctx, pauseKey(b.name))
	if errors.Is(err, store.ErrNotStored) || err != nil {
		return
	}
	if !pauseEnded(raw, time.Now()) {
		return
	}
	if err := e.client.QueueResume(ctx, queueOf(b.name), nil); err != nil {
		return
	}
	_ = b.Sessions.Delete(ctx, pauseKey(b.name))
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
