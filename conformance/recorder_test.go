package conformance

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
)

// recorder is an http.RoundTripper that keeps every request and answer
// passing through it, unchanged, for the validator.
type recorder struct {
	base   http.RoundTripper
	prefix string // the base URL's path, "/api", cut from recorded paths

	mu   sync.Mutex
	list []exchange
}

// RoundTrip sends req with the base transport and records the exchange.
// It reads the request body through GetBody (or a copy), so the request
// goes out as the SDK made it.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if req.GetBody != nil {
			var rc io.ReadCloser
			if rc, err = req.GetBody(); err == nil {
				body, err = io.ReadAll(rc)
				_ = rc.Close()
			}
		} else {
			body, err = io.ReadAll(req.Body)
			_ = req.Body.Close()
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		if err != nil {
			return nil, err
		}
	}
	x := exchange{
		method:    req.Method,
		path:      strings.TrimPrefix(req.URL.EscapedPath(), r.prefix),
		rawQuery:  req.URL.RawQuery,
		reqHeader: req.Header.Clone(),
		reqBody:   body,
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	x.status, x.respHeader, x.respBody = resp.StatusCode, resp.Header.Clone(), respBody
	r.mu.Lock()
	r.list = append(r.list, x)
	r.mu.Unlock()
	return resp, nil
}

// take returns the exchanges recorded so far and forgets them.
func (r *recorder) take() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.list
	r.list = nil
	return out
}
