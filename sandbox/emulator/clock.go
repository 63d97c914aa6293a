package emulator

import (
	"sync"
	"time"
)

// The emulator reads two clocks.
//
// The server's own clock ([WithClock], else time.Now) is the wire's: the
// Date header of every answer, the 60-second window of a request's Date,
// and the validity of certificates follow it, as on a real bank whose
// clock no TPP can move.
//
// The bank's clock is the server's clock moved by the clock controls
// ([Controls.SetTime], [Controls.Advance], [Controls.Freeze],
// [Controls.Resume]). Everything the bank keeps or decides follows it:
// SCA and consent validity, the access budget's 24 hours, the 180-day
// rule, the bank date (payments' execution dates, booking dates), the
// batch schedule, and the time spans of outages. So a test, in Go or in
// any language, can move a consent to its 89th day and keep signing its
// requests with the real time, as Stripe's test clocks leave API
// authentication alone.
//
// Without clock controls the two clocks read the same.
//
// The bank's clock stays within maxClockShift of the server's, either
// way: SetTime and Advance stop there.

// maxClockShift bounds how far the bank's clock may be from the server's
// clock, either way. A century covers any consent, SCA or settlement
// scenario, keeps every reading a year that JSON and the bank date can
// write (0 to 9999), and keeps the offset far from time.Duration's range
// (about 292 years), which a sum of moves would otherwise wrap around.
// The control API refuses a move past it; the Go controls stop at it.
const maxClockShift = 100 * 365 * 24 * time.Hour

// clampShift returns the shift of the reading r from the server's clock
// w, bounded by maxClockShift.
func clampShift(r, w time.Time) time.Duration {
	return min(max(r.Sub(w), -maxClockShift), maxClockShift)
}

// bankClock is the bank's clock: the server's clock plus an offset, or a
// frozen reading. The zero value reads the server's clock through wire,
// which newServer sets.
type bankClock struct {
	wire   func() time.Time // the server's clock: WithClock, else time.Now
	custom bool             // wire is WithClock's: it may move at any time (outages.go polls it)

	mu     sync.RWMutex
	offset time.Duration // added to wire while running
	frozen bool
	at     time.Time     // the reading while frozen
	moved  chan struct{} // closed (and replaced) at every change; nil until asked for
}

// now is the bank's time.
func (k *bankClock) now() time.Time {
	k.mu.RLock()
	frozen, at, off := k.frozen, k.at, k.offset
	k.mu.RUnlock()
	if frozen {
		return at
	}
	return k.wire().Add(off)
}

// set makes the bank's clock read t now; it keeps running unless frozen.
// The reading keeps the server clock's time zone (the batch schedule and
// the bank date read it).
func (k *bankClock) set(t time.Time) {
	w := k.wire()
	t = t.In(w.Location())
	k.change(func() {
		shift := clampShift(t, w)
		if k.frozen {
			k.at = w.Add(shift)
		} else {
			k.offset = shift
		}
	})
}

// advance moves the bank's clock by d (negative: back).
func (k *bankClock) advance(d time.Duration) {
	w := k.wire()
	k.change(func() {
		if k.frozen {
			k.at = w.Add(clampShift(k.at.Add(d), w))
		} else {
			k.offset = clampShift(w.Add(k.offset).Add(d), w)
		}
	})
}

// freeze stops the bank's clock at its current reading.
func (k *bankClock) freeze() {
	w := k.wire()
	k.change(func() {
		if !k.frozen {
			k.frozen, k.at = true, w.Add(k.offset)
		}
	})
}

// resume lets a frozen bank clock run again from its reading.
func (k *bankClock) resume() {
	w := k.wire()
	k.change(func() {
		if k.frozen {
			k.frozen, k.offset = false, k.at.Sub(w)
		}
	})
}

// change applies f under the lock and wakes whoever waits for the clock
// to move (hanging requests of an outage, a refused listener).
func (k *bankClock) change(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f()
	if k.moved != nil {
		close(k.moved)
		k.moved = nil
	}
}

// changed returns a channel closed at the next change of the clock.
func (k *bankClock) changed() <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.moved == nil {
		k.moved = make(chan struct{})
	}
	return k.moved
}

// isFrozen reports whether the clock is frozen.
func (k *bankClock) isFrozen() bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.frozen
}
