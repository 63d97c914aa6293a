package sca

import (
	"errors"
	"net/http"
)

// CallbackFunc is the TPP application's continuation after the bank sent
// the PSU back: s is the new session (already stored) when err is nil;
// otherwise err says why not (a [*CallbackError] when the PSU cancelled or
// SCA failed, ErrNoPending for an unknown, expired or replayed state,
// ErrMalformedCallback, ...). It must write the response. The old session,
// if any, is still stored when err is not nil.
type CallbackFunc func(w http.ResponseWriter, r *http.Request, s *Session, err error)

// Handler returns the http.Handler to mount at the Flow's redirect URI. It
// completes the SCA with [Manager.Complete] (finding the pending SCA by the
// callback's state, checking it, storing the session under the TPP's key)
// and then calls done, errors included. It completes on GET only: a HEAD
// is answered 200 without touching the pending SCA, other methods 405.
//
// The handler sets Cache-Control: no-store and Referrer-Policy: no-referrer
// before calling done, so the callback URL (which carries the PSU-ID) does
// not leak to other sites. It logs nothing.
func (m *Manager) Handler(done CallbackFunc) http.Handler {
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
		s, err := m.Complete(r.Context(), r.URL.RequestURI())
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
	default:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("This authentication link is invalid or has expired.\n"))
	}
}
