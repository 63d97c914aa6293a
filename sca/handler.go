package sca

import (
	"errors"
	"fmt"
	"net/http"
)

// CallbackFunc is the TPP application's continuation after the bank sent
// the PSU back: s is the new session (already stored) when err is nil;
// otherwise err says why not (a [*CallbackError] when the PSU cancelled or
// SCA failed, ErrNoPending for an unknown, expired or replayed state,
// ErrMalformedCallback, [ErrWrongBrowser] from [Manager.HandlerFor] when
// another browser started the SCA, ...). It must write the response. The
// old session, if any, is still stored when err is not nil.
type CallbackFunc func(w http.ResponseWriter, r *http.Request, s *Session, err error)

// Handler returns the http.Handler to mount at the Flow's redirect URI. It
// completes the SCA with [Manager.Complete] (finding the pending SCA by the
// callback's state, checking it, storing the session under the TPP's key)
// and then calls done, errors included. It completes on GET only: a HEAD
// is answered 200 without touching the pending SCA, other methods 405.
//
// Handler does not bind the callback to the browser that started the SCA:
// whoever loads the callback URL completes the SCA for the PSU who started
// it, so a PSU who approves a bank link someone else started (and sent
// them) connects their accounts to that other person's session. A web
// application must use [Manager.HandlerFor], or call [Manager.CompleteFor]
// with its own session's key; Handler suits a callback no browser session
// can identify.
//
// The handler sets Cache-Control: no-store and Referrer-Policy: no-referrer
// before calling done, so the callback URL (which carries the PSU-ID) does
// not leak to other sites. It logs nothing.
func (m *Manager) Handler(done CallbackFunc) http.Handler {
	return m.handler(nil, done)
}

// HandlerFor is [Manager.Handler] bound to the browser: on GET it asks
// keyOf for the session key of the browser that brought the callback
// (from the application's login session or cookie; keyOf must not create
// one, as a browser without one did not start the SCA) and completes with
// [Manager.CompleteFor], so that only the browser (or user) that started
// the SCA completes it; any other gets [ErrWrongBrowser]. When keyOf
// returns an error or an empty key (a browser with no session, a nil
// keyOf), the callback is refused the same way: the pending SCA is used
// up, nothing is stored, and done gets an error matching ErrWrongBrowser
// (and keyOf's error); a PSU whose browser lost its session starts again.
// Methods and headers are those of Handler; keyOf is not called for a
// HEAD.
//
// The key must come from an authenticated, server-issued session: one the
// application created and keeps server side (its login session), never a
// value the browser brings that the application did not issue, and one
// it renews (a new session id for the browser) when the SCA completes.
// Binding to a key an attacker can choose (any cookie value the browser
// sends, a URL parameter) binds nothing: an attacker who plants their key
// in the PSU's browser is handed the PSU's session when she connects her
// bank (session fixation). The site of examples/webapp shows the pattern.
func (m *Manager) HandlerFor(keyOf func(*http.Request) (string, error), done CallbackFunc) http.Handler {
	if keyOf == nil {
		keyOf = func(*http.Request) (string, error) { return "", errNoKeyFunc }
	}
	return m.handler(keyOf, done)
}

var errNoKeyFunc = errors.New("sca: HandlerFor has no key function")

// handler is Handler when keyOf is nil, HandlerFor otherwise.
func (m *Manager) handler(keyOf func(*http.Request) (string, error), done CallbackFunc) http.Handler {
	if done == nil {
		done = defaultDone
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		switch r.Method {
		case http.MethodGet:
		case http.MethodHead:
			// A HEAD (link previewers, prefetching) must not use up the
			// single-use pending SCA before the browser's GET arrives.
			w.WriteHeader(http.StatusOK)
			return
		default:
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if keyOf == nil {
			s, err := m.Complete(r.Context(), r.URL.RequestURI())
			done(w, r, s, err)
			return
		}
		key, kerr := keyOf(r)
		if kerr != nil {
			key = "" // refused below, after the pending SCA is used up
		}
		s, err := m.CompleteFor(r.Context(), key, r.URL.RequestURI())
		if kerr != nil && errors.Is(err, ErrWrongBrowser) {
			err = fmt.Errorf("%w: %w", ErrWrongBrowser, kerr)
		}
		done(w, r, s, err)
	})
}

// defaultDone answers with a plain text page.
func defaultDone(w http.ResponseWriter, _ *http.Request, _ *Session, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var ce *CallbackError
	switch {
	case err == nil:
		_, _ = w.Write([]byte("Authentication complete. You can close this window.\n"))
	case errors.As(err, &ce):
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("Authentication was cancelled or failed.\n"))
	case errors.Is(err, ErrWrongBrowser):
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("This authentication was started in another browser and was not completed here. Nothing was changed.\n"))
	default:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("This authentication link is invalid or has expired.\n"))
	}
}
