package emulator

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// maxBody bounds the request bodies the emulator reads.
const maxBody = 1 << 20

// call is one verified API request, handed to a handler with s.mu held.
type call struct {
	s         *Server
	r         *http.Request
	body      []byte
	tpp       *tpp
	now       time.Time
	requestID string
	readOnly  bool // run under s.mu's read lock (data.go, run)

	// the answer, written after s.mu is released
	status int
	out    []byte
	hdr    http.Header
}

// handler serves one verified request; see the comment at the top of
// server.go.
type handler func(c *call) error

// handle registers h for pattern (a ServeMux pattern such as
// "GET /v1/accounts/{id}", without the /api prefix) behind the common
// request checks of docs/interface.md section 5 (see verify) and the
// headers the operation requires (rules.RequirementOf).
func (s *Server) handle(mux *http.ServeMux, pattern string, h handler) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		path, method = method, ""
	}
	full := apiPrefix + path
	if method != "" {
		full = method + " " + full
	}
	s.apiRoutes = append(s.apiRoutes, pattern)
	need := rules.RequirementOf(pattern)
	mux.HandleFunc(full, func(w http.ResponseWriter, r *http.Request) {
		s.setCommonHeaders(w, r)
		c, aerr := s.verify(w, r, need.Body)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		s.ensureStore(c.tpp.id, c.now) // views.go
		err := c.checkRole(pattern)    // scenario.go
		if err == nil {
			if v := need.Check(r.Header); v != nil {
				err = violation(v)
			}
		}
		if err == nil {
			err = s.run(c, h) // locks s.mu (data.go)
		}
		for k, v := range c.hdr {
			w.Header()[k] = v
		}
		switch {
		case err != nil:
			var ae *apiError
			if !errors.As(err, &ae) {
				s.log.Error("emulator handler failed", "path", r.URL.Path, "err", err.Error())
				ae = errInternal()
			}
			writeError(w, withMiscasedHint(ae, c.body)) // casematch.go
		case c.out == nil:
			w.WriteHeader(cmp.Or(c.status, http.StatusOK))
		default:
			writeBody(w, cmp.Or(c.status, http.StatusOK), c.out)
		}
	})
}

// reply sets the answer: status and v as JSON. It returns nil so handlers
// can end with `return c.reply(...)`.
func (c *call) reply(status int, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	c.status, c.out = status, b
	return nil
}

// replyEmpty sets an answer without a body (204, 202).
func (c *call) replyEmpty(status int) error {
	c.status, c.out = status, nil
	return nil
}

// respHeader returns the answer's extra headers.
func (c *call) respHeader() http.Header {
	if c.hdr == nil {
		c.hdr = http.Header{}
	}
	return c.hdr
}

// header returns the request header name.
func (c *call) header(name string) string { return c.r.Header.Get(name) }

// query returns the query parameter name.
func (c *call) query(name string) string { return c.r.URL.Query().Get(name) }

// pathValue returns the unescaped path wildcard name (ids with "!" or
// "%21" both arrive as "!").
func (c *call) pathValue(name string) string { return c.r.PathValue(name) }

// require answers 400 HTTP_HEADER_REQUIRED for the first absent or blank
// header of names (rules.RequireHeaders).
func (c *call) require(names ...string) error {
	if v := rules.RequireHeaders(c.r.Header, names...); v != nil {
		return violation(v)
	}
	return nil
}

// psuPresent reports whether the PSU is actively present: PSU-IP-Address
// is sent (docs/interface.md section 5.14).
func (c *call) psuPresent() bool { return strings.TrimSpace(c.header("PSU-IP-Address")) != "" }

// decode decodes the JSON body into v (rules.DecodeJSON). Unknown fields
// are allowed, and a key naming a field of v in another case is one of
// them (field names are case-sensitive); an empty body or a type mismatch
// gives 400 FORMAT_ERROR, naming the field when the decoder knows it.
func (c *call) decode(v any) error {
	if viol := rules.DecodeJSON(c.body, v); viol != nil {
		return violation(viol)
	}
	return nil
}
