// Package browser plays the PSU's browser for the examples and demos that
// run a TPP and the bank sandbox in one process: it brings the bank's
// callback to the TPP's redirect URI handler, [sca.Manager.HandlerFor],
// the one way a web application completes an SCA, without an HTTP server.
package browser

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"

	"github.com/tppkit/psd2/sca"
)

// Callback loads callbackURL in the browser of the TPP's user key (the user
// of the login session the browser brings) at m's HandlerFor, and returns
// the session it completed, or why it did not.
func Callback(ctx context.Context, m *sca.Manager, key, callbackURL string) (*sca.Session, error) {
	if m == nil {
		return nil, errors.New("browser: no Manager")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, callbackURL, nil)
	if err != nil {
		return nil, err
	}
	var (
		sess *sca.Session
		cerr = errors.New("browser: the handler did not complete")
	)
	h := m.HandlerFor(func(*http.Request) (string, error) { return key, nil },
		func(_ http.ResponseWriter, _ *http.Request, s *sca.Session, err error) { sess, cerr = s, err })
	h.ServeHTTP(httptest.NewRecorder(), req)
	return sess, cerr
}
