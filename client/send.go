package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

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
	// earlier answer (relative, or absolute on the bank's host). It may
	// be a template whose parameters in braces, each a whole segment
	// ("/v1/accounts/{accountId}/balances"), take their values from
	// Params.
	Path string
	// Params are the values of Path's parameters, by name. The client
	// checks each one (not empty, not "." or "..", no control character,
	// UTF-8) and escapes it as one path segment ("/" included); a value
	// that breaks the rule, or a parameter without a value, refuses the
	// call before it is sent with a *ValidationError whose Field is the
	// parameter's name. Checked even with [WithoutValidation].
	Params map[string]string
	// Refuse, when set, is what the service found wrong with the call's
	// arguments as it declared the call (no body given, an empty link):
	// the client refuses the call with it before it is sent, even with
	// [WithoutValidation], inside a *NotSentError. An error that is not a
	// *ValidationError comes inside one, so that every refusal matches
	// both [ErrNotSent] and [ErrValidation].
	Refuse error
	// Query is added to the path's own query.
	Query url.Values
	// Body is encoded as JSON when not nil. A json.RawMessage or []byte
	// holding JSON is sent as it is.
	Body any
	// Repeatable marks a POST that is safe to send again (creates nothing
	// that could be doubled). GET and DELETE are always repeatable.
	Repeatable bool
	// ResultID names the member of a 2xx answer that identifies what a
	// call that is not repeatable created ("paymentId", "basketId"). Such
	// a call's 2xx answer must be a JSON object, decodable into the
	// caller's type and, when ResultID is set, carrying that member as a
	// non-empty string that can be a path segment (not "." or "..", no
	// control character, no spaces around it, UTF-8: a body in another
	// charset gives another id than the bank's), and no member of that
	// name in another case ("PAYMENTID", which encoding/json would
	// decode into the caller's field); otherwise the outcome is unknown.
	ResultID string
	// ResultIDFromLinks lets the id come from the answer's links when its
	// ResultID member is absent: the segment after Path (a path without
	// parameters) in the hrefs of its _links ([Links.IDUnder]). Only
	// when no member and no link gives it is the outcome unknown. For a
	// resource whose answer the interface does not require to carry its
	// id (a signing basket's basketId).
	ResultIDFromLinks bool
	// Statuses, when set, lists the 2xx statuses the interface names for
	// the call's answer (a payment's cancellation: 204 and 202). A 2xx
	// answer with another status is neither decoded nor a success: the
	// call fails with an [*UnexpectedStatusError] (inside an
	// [*OutcomeUnknownError] for a request that is not repeatable), which
	// says the bank answered but not as the interface says, so what it
	// did is unknown. Empty: every 2xx status is a success.
	Statuses []int
	// Require lists the headers the interface requires for this call
	// (docs/interface.md section 4), such as "PSU-ID" or
	// "TPP-Session-ID". A call without one of them is refused before it is
	// sent with a *ValidationError naming the option that sets it.
	// TPP-Redirect-URI is required on every call but the sandbox's without
	// being listed. Required headers are checked even with
	// [WithoutValidation].
	Require []string
	// Validate is the operation's client-side validation of the resolved
	// call (its body, its headers). An error stops the call before it is
	// sent. [WithoutValidation] skips it. When the body cannot be encoded,
	// Validate runs on the call without a body, so that its error, not
	// the encoder's, tells the caller what is wrong.
	Validate func(*Call) error
	// Hook runs around the call; see [Hook].
	Hook Hook
	// BeforeRetry, when set, runs before each retry that follows an
	// attempt that may have reached the bank (a byte of it left), with
	// the resolved call (the same *Call the call's Hook was given); not before a retry of an attempt that never left,
	// nor before the clock-skew retry, whose attempt the bank refused
	// without acting on it. An error from it ends the call with that
	// attempt's result, as if the policy allowed no more retries: the
	// retry is not sent. Package budget reserves one more call there,
	// since the bank may count every attempt it received.
	BeforeRetry func(ctx context.Context, call *Call) error
}

func (op *Operation) repeatable() bool {
	switch op.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		return true
	}
	return op.Repeatable
}

// Response describes a successful answer to [Client.Do]: its response
// metadata, which every typed result of the services carries too
// ([Answer]), and its headers.
type Response struct {
	Meta
	// Header holds the answer's headers as they came, for a caller of
	// [Client.Do] that needs one Meta does not keep. Its printed forms
	// show it as the client's logger does.
	Header http.Header
}

// Do sends op through the pipeline of docs/design.md section 2 and decodes
// a 2xx JSON answer into out (a pointer; nil discards the body; a nil
// pointer is refused before sending, a *NotSentError whose
// *ValidationError names "out").
//
// What a failed call returns:
//   - a non-2xx answer is a *Error;
//   - a call none of whose attempts left the machine is a *NotSentError
//     (matches [ErrNotSent]);
//   - a request that is not repeatable (a payment POST, a start of
//     authorisation) that may have reached the bank without a usable
//     answer (5xx, 408, a 4xx without the bank's tppMessages under
//     that name exactly, and no other spelling of it beside them, a
//     dropped connection, a timeout, a body cut short, a 2xx whose body
//     is empty, not JSON, or lacks op.ResultID, names it also in
//     another case, or holds as it what cannot be a path segment: "."
//     or "..", a control character, spaces around it, bytes that are
//     not UTF-8) is an
//     *OutcomeUnknownError (matches [ErrOutcomeUnknown]);
//   - a 2xx answer decoded into a struct whose top level names a member
//     in two cases fails with [ErrAmbiguousAnswer] (inside an
//     *OutcomeUnknownError for a request that is not repeatable);
//   - a response whose signature does not verify is a
//     *ResponseSignatureError (inside an *OutcomeUnknownError for a
//     request that is not repeatable), and its body is not decoded.
func (c *Client) Do(ctx context.Context, op Operation, out any, opts ...RequestOption) (resp *Response, err error) {
	if op.Name == "" {
		op.Name = op.Method + " " + pathTemplate(op.Path)
	}
	if c == nil {
		return nil, &NotSentError{Operation: op.Name, Err: &ValidationError{Field: "client", Reason: "no client (use client.New)"}}
	}
	// A nil context is refused as a bad argument, never dereferenced;
	// the observer sees the refusal under a background context.
	noCtx := ctx == nil
	if noCtx {
		ctx = context.Background()
	}
	if c.cfg.observer != nil { // observe.go
		var s *observed
		ctx, s = c.observeOperation(ctx, &op)
		defer func() { s.end(ctx, resp, err) }()
	}
	if noCtx {
		return nil, &NotSentError{Operation: op.Name, Err: &ValidationError{Field: "ctx", Reason: "nil context"}}
	}
	if op.Refuse != nil {
		return nil, &NotSentError{Operation: op.Name, Err: asValidation(op.Refuse)}
	}
	if nilPointer(out) {
		// Nowhere to put the answer: refused before the bank acts on a
		// call whose result would be lost (and an empty answer's Meta
		// would be delivered through the nil pointer).
		return nil, &NotSentError{Operation: op.Name, Err: &ValidationError{Field: "out", Reason: "nil pointer (pass nil to discard the answer)"}}
	}
	if err := ctx.Err(); err != nil {
		return nil, &NotSentError{Operation: op.Name, Err: err}
	}
	p, err := c.prepare(&op, opts)
	if err != nil {
		return nil, &NotSentError{Operation: op.Name, Err: asValidation(err)}
	}
	if err := checkRequired(&op, p.urlPath, p.header); err != nil {
		return nil, &NotSentError{Operation: op.Name, RequestID: p.requestID, Err: err}
	}
	if op.Validate != nil && !p.skipValidation {
		if err := op.Validate(p.call()); err != nil {
			return nil, &NotSentError{Operation: op.Name, RequestID: p.requestID, Err: asValidation(err)}
		}
	}
	adm, err := c.admit(ctx) // breaker.go
	if err != nil {
		return nil, &NotSentError{Operation: op.Name, RequestID: p.requestID, Err: err}
	}
	defer adm.done()
	p.adm = adm
	var after func(Result)
	if op.Hook != nil {
		if after, err = op.Hook(ctx, p.call()); err != nil {
			return nil, &NotSentError{Operation: op.Name, RequestID: p.requestID, Err: err}
		}
	}
	res := c.exchange(ctx, &p.op, p, out)
	if after != nil {
		after(Result{Sent: !errors.Is(res.err, ErrNotSent), Attempts: p.sent, StatusCode: res.status, ResultID: res.id, Err: res.err})
	}
	return res.resp, res.err
}

// nilPointer reports whether out is a nil pointer of some type: not the
// nil interface, which discards the answer, but nowhere to decode it.
func nilPointer(out any) bool {
	if out == nil {
		return false
	}
	v := reflect.ValueOf(out)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// outcome is what Client.exchange ended with.
type outcome struct {
	resp   *Response
	status int
	id     string // op.ResultID's value in a 2xx answer
	err    error
}

// exchange sends a prepared call, checks the answer and decodes it.
func (c *Client) exchange(ctx context.Context, op *Operation, p *prepared, out any) outcome {
	r, err := c.send(ctx, p)
	if err != nil {
		// An answer whose body could not be read still has its status:
		// a create answered 2xx exists even when its id was lost.
		var ue *OutcomeUnknownError
		if errors.As(err, &ue) {
			return outcome{status: ue.StatusCode, err: err}
		}
		return outcome{err: err}
	}
	fail := func(err error) outcome { return outcome{status: r.status, err: err} }
	unknown := func(err error) error {
		return &OutcomeUnknownError{Operation: op.Name, RequestID: p.requestID, StatusCode: r.status, Err: err}
	}
	if err := c.checkReply(r, p.requestID); err != nil {
		var e error = &ResponseSignatureError{Operation: op.Name, StatusCode: r.status, RequestID: p.requestID, Err: err}
		if !op.repeatable() {
			e = unknown(e)
		}
		return fail(e)
	}
	ok := r.status >= 200 && r.status <= 299
	cut := r.cut // the body read, cut at maxErrorBody (bankRefusal)
	switch {
	case r.decodeErr != nil && ok:
		err := fmt.Errorf("reading answer: %w", r.decodeErr)
		if !op.repeatable() {
			return fail(unknown(err))
		}
		// Named as every other failure of a repeatable call is
		// (exchange.finish, a decoding error below): a gzip answer past
		// the limits is the same ErrAnswerTooLarge as a plain one.
		return fail(fmt.Errorf("%s: %w", op.Name, err))
	case r.decodeErr != nil:
		// A non-2xx answer is a *Error whatever its body: one whose
		// Content-Encoding cannot be undone (a proxy's page that says
		// gzip, a gzip body cut at maxErrorBody) says nothing, as a body
		// that is not JSON, and its status and headers (Retry-After)
		// stand.
		r.body = nil
	case r.decoded != nil:
		r.body, cut = r.decoded, r.decodedCut
	}
	if !ok {
		e := newError(op.Name, r.status, p.requestID, r.header, r.body)
		// Only the bank's own 4xx (with its tppMessages) says it did not
		// act; a 5xx, a redirect (a 303 "see the created resource"
		// included), a 408 or a bare 4xx, which a gateway may answer
		// after the bank acted, says nothing.
		if !op.repeatable() && !bankRefusal(r.status, r.body, cut, e) {
			return fail(unknown(e))
		}
		return fail(e)
	}
	if len(op.Statuses) > 0 && !slices.Contains(op.Statuses, r.status) {
		var e error = &UnexpectedStatusError{Operation: op.Name, RequestID: p.requestID, StatusCode: r.status, Named: slices.Clone(op.Statuses)}
		if !op.repeatable() {
			e = unknown(e)
		}
		return fail(e)
	}
	if r.status == http.StatusNoContent {
		// A 204 has no content (RFC 9110 section 15.3.5): whatever came
		// with it is not read, so it can neither fail the answer nor put
		// values into the caller's result. (net/http's transport drops
		// such a body before it is read; another transport may not.)
		r.body = nil
	}
	resp := &Response{Meta: newMeta(op.Name, p.requestID, r, c.cfg.clock()), Header: r.header}
	under := ""
	if op.ResultIDFromLinks {
		under = op.Path
	}
	id, unusable, err := readAnswer(r.body, op.ResultID, under, !op.repeatable(), out)
	switch {
	case unusable != nil && !op.repeatable():
		return fail(unknown(unusable))
	case err != nil:
		err = fmt.Errorf("decoding answer: %w", err)
		if !op.repeatable() {
			// The id was read from the 2xx answer all the same (a member
			// beside it failed, such as an href over MaxHrefLength): the
			// resource exists, and the Hook gets its id (a journal keeps
			// it, never resending a create the bank made).
			return outcome{status: r.status, id: id, err: unknown(err)}
		}
		return outcome{resp: resp, status: r.status, id: id, err: fmt.Errorf("%s: %w", op.Name, err)}
	}
	deliverMeta(resp.Meta, out, p.values) // meta.go
	return outcome{resp: resp, status: r.status, id: id}
}

// prepared is one call, fixed before the first attempt: URL, encoded body,
// X-Request-ID and every header but Date and the signature stay the same on
// every attempt.
type prepared struct {
	op             Operation // a copy: Do's op then stays on its stack
	url            string
	urlPath        string
	body           []byte // nil: no body
	header         http.Header
	requestID      string
	skipValidation bool
	scope          string
	values         []callValue // WithValue
	resolved       *Call       // call(), made once
	// sent counts the attempts a byte of which may have left (the
	// retry loop's), for Result.Attempts.
	sent int
	adm  admission // the call's pass through the bank's breaker
}

// call describes p for hooks and validators, made the first time one
// asks; its header is a copy, without the headers the first attempt was
// signed with when it is made after that attempt (BeforeRetry).
func (p *prepared) call() *Call {
	if p.resolved == nil {
		h := p.header.Clone()
		for _, k := range attemptHeaders {
			delete(h, k)
		}
		p.resolved = &Call{Operation: p.op.Name, Method: p.op.Method, URL: p.url, Path: p.urlPath, Scope: p.scope,
			RequestID: p.requestID, Body: p.body, Header: h, Repeatable: p.op.repeatable(), values: p.values}
	}
	return p.resolved
}

// attemptHeaders are the headers each attempt gets when it is signed
// (Client.sign).
var attemptHeaders = [...]string{"Date", "Tpp-Signature-Certificate", "Signature"}

// prepare applies the client's default options and then the call's, once,
// resolves the URL, encodes the body once and builds the headers shared by
// all attempts.
func (c *Client) prepare(op *Operation, opts []RequestOption) (*prepared, error) {
	call, err := applyOptions(c.cfg.defaults, opts)
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
	path, err := expandPath(op.Path, op.Params)
	if err != nil {
		return nil, err
	}
	u, err := c.resolve(path, query)
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
			err = &ValidationError{Field: "body", Reason: "encoding body: " + err.Error(), Err: err}
			// A value that cannot be encoded is usually an invalid one
			// (an amount without a currency): the operation's validation,
			// run on the call without its body, says which field.
			if op.Validate != nil && !call.skipValidation {
				partial := &Call{Operation: op.Name, Method: op.Method, URL: u.String(), Header: call.headers(0), Repeatable: op.repeatable(), values: call.values}
				if verr := op.Validate(partial); verr != nil {
					err = verr
				}
			}
			return nil, err
		}
	}
	requestID := call.requestID
	if requestID == "" {
		requestID = uuid.NewString()
	}
	// The pipeline's own headers, under their canonical keys, with the
	// options' (callConfig.setKey): no allocation per header, nor per key
	// to canonicalise; the map is made once they are all known.
	set := call.setKey
	set("X-Request-Id", requestID)
	set("Accept", "application/json")
	// No compression: the answer's Digest then covers the bytes read
	// (decodeContent copes with a bank that compresses anyway).
	set("Accept-Encoding", "identity")
	if body != nil {
		set("Content-Type", "application/json")
		set("Digest", signing.Digest(body))
	}
	set("X-Accept-Fix", c.acceptFixValue(call.acceptFix))
	if c.cfg.userAgent != "" {
		set("User-Agent", c.cfg.userAgent)
	}
	return &prepared{op: *op, url: u.String(), urlPath: strings.TrimPrefix(u.EscapedPath(), c.basePath), body: body, header: call.headers(len(attemptHeaders)),
		requestID: requestID, skipValidation: call.skipValidation, scope: c.Scope(), values: call.values}, nil
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

// sign gives one attempt its Date, now in the bank's time, and signs it
// with the credentials current now: Signature and
// TPP-Signature-Certificate over the final headers. It refuses a
// certificate outside its validity window, measured on the local clock,
// before anything is sent.
func (c *Client) sign(req *http.Request, now time.Time) error {
	st, err := c.credentials(req.Context(), c.cfg.clock())
	if err != nil {
		return err
	}
	req.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	req.Header.Set("Tpp-Signature-Certificate", st.certB64)
	return st.signer.Sign(req)
}
