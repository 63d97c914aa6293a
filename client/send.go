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
	"github.com/hashicorp/go-retryablehttp"
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
	// Body is encoded as JSON when not nil. A json.RawMessage or []byte
	// holding JSON is sent as it is.
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
// 2xx JSON answer into out (a pointer; nil discards the body).
//
// A non-2xx answer is a *Error. A request that is not repeatable (a
// payment POST) and may have reached the bank without a clear answer (5xx,
// a dropped connection, a timeout) is an *OutcomeUnknownError. A response
// whose signature does not verify is a *ResponseSignatureError (wrapped in
// an *OutcomeUnknownError for a non-repeatable request), and its body is
// not decoded.
func (c *Client) Do(ctx context.Context, op Operation, out any, opts ...RequestOption) (*Response, error) {
	if op.Name == "" {
		op.Name = op.Method + " " + op.Path
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	p, err := c.prepare(&op, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	resp, body, err := c.send(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := c.verifyResponse(resp.Header, body, p.requestID); err != nil {
		var e error = &ResponseSignatureError{Operation: op.Name, StatusCode: resp.StatusCode, RequestID: p.requestID, Err: err}
		if !op.repeatable() {
			e = &OutcomeUnknownError{Operation: op.Name, RequestID: p.requestID, StatusCode: resp.StatusCode, Err: e}
		}
		return nil, e
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := newError(op.Name, resp.StatusCode, p.requestID, resp.Header, body)
		if resp.StatusCode >= 500 && !op.repeatable() {
			return nil, &OutcomeUnknownError{Operation: op.Name, RequestID: p.requestID, StatusCode: resp.StatusCode, Err: e}
		}
		return nil, e
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: p.requestID}
	if out != nil && len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, out); err != nil {
			return r, fmt.Errorf("%s: decoding answer: %w", op.Name, err)
		}
	}
	return r, nil
}

// prepared is one call, fixed before the first attempt: URL, encoded body,
// X-Request-ID and every header but Date and the signature stay the same on
// every attempt.
type prepared struct {
	op        *Operation
	url       string
	body      []byte // nil: no body
	header    http.Header
	requestID string
}

// prepare applies the request options, resolves the URL, encodes the body
// once and builds the headers shared by all attempts.
func (c *Client) prepare(op *Operation, opts []RequestOption) (*prepared, error) {
	call, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	query := op.Query
	if len(call.query) > 0 {
		query = url.Values{}
		for k, v := range op.Query {
			query[k] = append(query[k], v...)
		}
		for k, v := range call.query {
			query[k] = append(query[k], v...)
		}
	}
	u, err := c.resolve(op.Path, query)
	if err != nil {
		return nil, err
	}
	var body []byte
	switch b := op.Body.(type) {
	case nil:
	case json.RawMessage:
		body = b
	case []byte:
		body = b
	default:
		if body, err = json.Marshal(b); err != nil {
			return nil, fmt.Errorf("encoding body: %w", err)
		}
	}
	requestID := call.requestID
	if requestID == "" {
		requestID = uuid.NewString()
	}
	h := call.header
	h.Set("X-Request-ID", requestID)
	h.Set("Accept", "application/json")
	if body != nil {
		h.Set("Content-Type", "application/json")
		h.Set("Digest", signing.Digest(body))
	}
	h.Set("X-Accept-Fix", c.acceptFixValue(call.acceptFix))
	if c.cfg.userAgent != "" {
		h.Set("User-Agent", c.cfg.userAgent)
	}
	return &prepared{op: op, url: u.String(), body: body, header: h, requestID: requestID}, nil
}

func (c *Client) acceptFixValue(extra []AcceptFix) string {
	if len(c.cfg.acceptFix) == 0 && len(extra) == 0 {
		return string(AcceptAmountAsString)
	}
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

// sign gives one attempt a fresh Date, in the bank's time, and signs it
// with the credentials current now: Signature and TPP-Signature-Certificate
// over the final headers. It refuses a certificate outside its validity
// window before anything is sent.
func (c *Client) sign(req *http.Request, x *exchange) error {
	now := c.now()
	st, err := c.credentials(req.Context(), now)
	if err != nil {
		return err
	}
	req.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	req.Header.Set("Tpp-Signature-Certificate", st.certB64)
	if err := st.signer.Sign(req); err != nil {
		return err
	}
	x.sentDate = now
	return nil
}

// send runs the attempts through go-retryablehttp with the hooks of
// [exchange] and returns the final response with its body read.
func (c *Client) send(ctx context.Context, p *prepared) (*http.Response, []byte, error) {
	x := &exchange{c: c, p: p}
	if !p.op.repeatable() {
		ctx = x.trace(ctx)
	}
	var raw any
	if p.body != nil {
		raw = p.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, p.op.Method, p.url, raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.op.Name, err)
	}
	req.Header = p.header
	if err := c.sign(req.Request, x); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.op.Name, err)
	}
	resp, err := x.retrier().Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, nil, x.failure(err)
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
