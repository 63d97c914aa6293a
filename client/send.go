package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/signing"
)

// Operation describes one call of the interface. Service packages fill it
// in and hand it to [Client.Do]; they never build requests themselves.
type Operation struct {
	// Name identifies the SDK call in errors, e.g. "payments.Status".
	Name string
	// Method is the HTTP method.
	Method string
	// Path is "/v1/..." relative to the base URL, or an href from an
	// earlier answer (relative, or absolute on the bank's host).
	Path string
	// Query is added to the path's own query.
	Query url.Values
	// Body is encoded as JSON when not nil.
	Body any
	// Repeatable marks a POST that is safe to send again (creates nothing
	// that could be doubled). GET and DELETE are always repeatable.
	Repeatable bool
}

func (op *Operation) repeatable() bool {
	switch op.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		return true
	}
	return op.Repeatable
}

// Response describes a successful answer.
type Response struct {
	StatusCode int
	Header     http.Header
	// RequestID is the X-Request-ID the client sent.
	RequestID string
}

// maxBody bounds the size of a response body the client reads.
const maxBody = 32 << 20

// Do sends op through the pipeline of DESIGN.md section 2 and decodes a
// 2xx JSON answer into out (a pointer; nil discards the body). A non-2xx
// answer is a *Error; a non-repeatable request whose outcome is unknown is
// an *OutcomeUnknownError.
func (c *Client) Do(ctx context.Context, op Operation, out any, opts ...RequestOption) (*Response, error) {
	if op.Name == "" {
		op.Name = op.Method + " " + op.Path
	}
	call, err := applyOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	u, err := c.resolve(op.Path, op.Query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	var body []byte
	if op.Body != nil {
		if body, err = json.Marshal(op.Body); err != nil {
			return nil, fmt.Errorf("%s: encoding body: %w", op.Name, err)
		}
	}
	requestID := call.requestID
	if requestID == "" {
		requestID = uuid.NewString()
	}
	p := &prepared{op: &op, url: u, body: body, call: call, requestID: requestID}
	resp, respBody, err := c.send(ctx, p)
	if err != nil {
		return nil, err
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: requestID}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := newError(op.Name, resp.StatusCode, requestID, resp.Header, respBody)
		if resp.StatusCode >= 500 && !op.repeatable() {
			return nil, &OutcomeUnknownError{Operation: op.Name, RequestID: requestID, StatusCode: resp.StatusCode, Err: e}
		}
		return nil, e
	}
	if out != nil && len(bytes.TrimSpace(respBody)) > 0 {
		if err := json.Unmarshal(respBody, out); err != nil {
			return r, fmt.Errorf("%s: decoding answer: %w", op.Name, err)
		}
	}
	return r, nil
}

// prepared is one call, fixed before the first attempt: URL, encoded body
// and X-Request-ID stay the same on every attempt.
type prepared struct {
	op        *Operation
	url       *url.URL
	body      []byte
	call      *callConfig
	requestID string
}

// newRequest builds and signs one attempt with a fresh Date.
func (c *Client) newRequest(ctx context.Context, p *prepared) (*http.Request, error) {
	var rd io.Reader
	if p.body != nil {
		rd = bytes.NewReader(p.body)
	}
	req, err := http.NewRequestWithContext(ctx, p.op.Method, p.url.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range p.call.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	st := c.state.Load()
	req.Header.Set("Date", c.now().UTC().Format(http.TimeFormat))
	req.Header.Set("X-Request-ID", p.requestID)
	req.Header.Set("Accept", "application/json")
	if p.body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Digest", signing.Digest(p.body))
	}
	req.Header.Set("x-accept-fix", c.acceptFixValue(p.call.acceptFix))
	if c.cfg.userAgent != "" {
		req.Header.Set("User-Agent", c.cfg.userAgent)
	}
	req.Header.Set("TPP-Signature-Certificate", st.certB64)
	if err := st.signer.Sign(req); err != nil {
		return nil, err
	}
	return req, nil
}

func (c *Client) acceptFixValue(extra []AcceptFix) string {
	vals := []string{string(AcceptAmountAsString)}
	seen := map[string]bool{vals[0]: true}
	for _, list := range [][]AcceptFix{c.cfg.acceptFix, extra} {
		for _, f := range list {
			if !seen[string(f)] {
				seen[string(f)] = true
				vals = append(vals, string(f))
			}
		}
	}
	return strings.Join(vals, ",")
}

// send runs the attempts. This first version makes one attempt; the retry
// policy of DESIGN.md section 2 plugs in here.
func (c *Client) send(ctx context.Context, p *prepared) (*http.Response, []byte, error) {
	req, err := c.newRequest(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.op.Name, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if !p.op.repeatable() {
			return nil, nil, &OutcomeUnknownError{Operation: p.op.Name, RequestID: p.requestID, Err: err}
		}
		return nil, nil, fmt.Errorf("%s: %w", p.op.Name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if !p.op.repeatable() {
			return nil, nil, &OutcomeUnknownError{Operation: p.op.Name, RequestID: p.requestID, StatusCode: resp.StatusCode, Err: err}
		}
		return nil, nil, fmt.Errorf("%s: reading answer: %w", p.op.Name, err)
	}
	return resp, b, nil
}
