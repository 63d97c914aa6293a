package sca

import (
	"context"
	"net/http"
	"time"
)

// Test-only doors. The package completes an SCA one way in a web
// application (Manager.HandlerFor) and one way in a command-line program
// or a test of a TPP's own code (Flow.Start, then Flow.ParseCallback); the
// package's own tests also reach the Manager's completion directly.

// Complete completes the SCA of callbackURL for the key it was started
// under, as HandlerFor does for the browser that started it.
func (m *Manager) Complete(ctx context.Context, callbackURL string) (*Session, error) {
	return m.complete(ctx, m.startedUnder(ctx, callbackURL), callbackURL)
}

// CompleteFor completes the SCA of callbackURL for the browser of key.
func (m *Manager) CompleteFor(ctx context.Context, key, callbackURL string) (*Session, error) {
	return m.complete(ctx, key, callbackURL)
}

// Handler is HandlerFor with the browser of the key the SCA was started
// under.
func (m *Manager) Handler(done CallbackFunc) http.Handler {
	return m.handler(func(r *http.Request) (string, error) {
		return m.startedUnder(r.Context(), r.URL.RequestURI()), nil
	}, done)
}

// startedUnder is the key of the pending SCA of callbackURL, "" when there
// is none. It leaves the pending SCA stored.
func (m *Manager) startedUnder(ctx context.Context, callbackURL string) string {
	state, err := callbackState(callbackURL)
	if err != nil {
		return ""
	}
	b, err := m.store.Get(ctx, pendingPrefix+state)
	if err != nil {
		return ""
	}
	var p Pending
	if p.UnmarshalBinary(b) != nil {
		return ""
	}
	return p.Key
}

var (
	CallbackState = callbackState
	TakePending   = takePending
	SavePending   = savePending
)

// SetStoreWait shortens m's bound of each store call (storeWait) for a
// test of a hung store.
func SetStoreWait(m *Manager, d time.Duration) { m.st.Wait = d }
