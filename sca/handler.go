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
// ErrMalformedCallback, [ErrWrongBrowser] when another browser started
// the SCA, ...). It must write the response. The
// old session, if any, is still stored when err is not nil.
type CallbackFunc func(w http.ResponseWriter, r *http.Request, s *Session, err error)

// HandlerFor returns the http.Handler to mount at the Flow's redirect URI:
// the one way a web application completes an SCA. On GET it asks keyOf for
// the session key of the browser that brought the callback, takes the
// pending SCA named by the callback's state from the store (once: a
// replayed callback gets ErrNoPending), completes it only when it was
// started under that key, stores the new Session under it (replacing the
// PSU's old session, docs/interface.md section 3), and then calls done,
// errors included. A callback brought by another browser or user than the
// one that started the SCA gets [ErrWrongBrowser]. When keyOf returns an
// error or an empty key (a browser with no session, a nil keyOf), the
// callback is refused the same way: the pending SCA is used up, nothing
// is stored, and done gets an error matching ErrWrongBrowser (and keyOf's
// error); a PSU whose browser lost its session starts again. It completes
// on GET only: a HEAD is answered 200 without touching the pending SCA
// (keyOf is not called), other methods 405.
//
// What the new session's consent is depends on what the SCA was for
// ([Pending.Purpose]): the consent flow's SCA grants a fresh
// [ConsentValidity]; a payment's or GET /v1/user's keeps the consent end
// and remembered accounts of the same PSU's previous session
// ([Session.After]) and otherwise has none ([Session.NoConsent]).
//
// The key must come from an authenticated, server-issued session: one the
// application created and keeps server side (its login session), never a
// value the browser brings that the application did not issue, and one
// it renews (a new session id for the browser) when the SCA completes.
// keyOf must not create one, as a browser without one did not start the
// SCA. Binding to a key an attacker can choose (any cookie value the
// browser sends, a URL parameter) binds nothing: an attacker who plants
// their key in the PSU's browser is handed the PSU's session when she
// connects her bank (session fixation). The site of examples/webapp shows
// the pattern.
//
// The handler sets Cache-Control: no-store and Referrer-Policy: no-referrer
// before calling done, so the callback URL (which carries the PSU-ID) does
// not leak to other sites. It logs nothing.
func (m *Manager) HandlerFor(keyOf func(*http.Request) (string, error), done CallbackFunc) http.Handler {
	if keyOf == nil {
		keyOf = func(*http.Request) (string, error) { return "", errNoKeyFunc }
	}
	return m.handler(keyOf, done)
}

var errNoKeyFunc = errors.New("sca: HandlerFor has no key function")

// handler is HandlerFor's handler, keyOf set.
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
		key, kerr := keyOf(r)
		if kerr != nil {
			key = "" // refused below, after the pending SCA is used up
		}
		s, err := m.complete(r.Context(), key, r.URL.RequestURI())
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
