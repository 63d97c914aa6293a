package storebound

import (
	"context"
	"sync"
)

// Writes counts the store writes still under way in the background after
// the call that made them returned (its caller's deadline came first), so
// that a Flush before the process exits can wait for them. The zero value
// is ready; a Writes must not be copied after first use.
type Writes struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n falls to zero
}

// Track counts one write under way until the returned func is called
// (once).
func (w *Writes) Track() (done func()) {
	w.mu.Lock()
	if w.n == 0 {
		w.idle = make(chan struct{})
	}
	w.n++
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.n--; w.n == 0 {
			close(w.idle)
		}
		w.mu.Unlock()
	}
}

// Wait returns nil once no write is under way, or ctx's error when it
// ends first.
func (w *Writes) Wait(ctx context.Context) error {
	w.mu.Lock()
	if w.n == 0 {
		w.mu.Unlock()
		return nil
	}
	idle := w.idle
	w.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
