package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Observer receives what the client does, as typed events: one pair per
// operation ([Client.Do]) and one event per attempt. The events carry the
// operation's name, the bank's name (given with [WithBank]: a bank's
// name, never a person's) or host, statuses, the bank's tppMessage
// codes, outcome classes, counts and durations, and nothing else: no
// field of them can hold a PSU id, a session id, an account id, an IP
// address, SCA state, a URL with its ids, a header or a body. The
// module github.com/tppkit/psd2/otel turns them into OpenTelemetry spans
// and metrics.
//
// The client calls an Observer on the caller's goroutine, synchronously:
// its methods must be quick, safe for concurrent use and must not call
// the client. Set one with [WithObserver]; without one the client does
// no work for it. An Observer that is also an [AttemptStarter] is told
// when each attempt starts as well.
type Observer interface {
	// StartOperation is called when an operation begins. The context it
	// returns (ctx, or one derived from it, carrying a span) is the one
	// given to ObserveAttempt and EndOperation for this operation, and
	// the one the operation's requests are sent with.
	StartOperation(ctx context.Context, op OperationStart) context.Context
	// ObserveAttempt is called after each attempt, sent or not, with the
	// context StartAttempt returned for it (see [AttemptStarter]), else
	// the operation's.
	ObserveAttempt(ctx context.Context, a AttemptEvent)
	// EndOperation is called once when the operation ends.
	EndOperation(ctx context.Context, e OperationEvent)
}

// AttemptStarter is an [Observer] that is also told when each attempt
// starts, so that it can time the attempt as it runs (an OpenTelemetry
// span started then, ending at the end ObserveAttempt reports), rather
// than after the fact. The client calls StartAttempt for every attempt of an
// operation, before the attempt's request is built and signed, and then
// ObserveAttempt exactly once for it, with the context StartAttempt
// returned. An Observer that is not an AttemptStarter is only called
// after each attempt, as before.
type AttemptStarter interface {
	Observer
	// StartAttempt is called when an attempt begins, with the context
	// StartOperation returned. The context it returns (ctx, or one
	// derived from it, carrying the attempt's span) is the attempt's: its
	// request is sent with it, and ObserveAttempt gets it.
	StartAttempt(ctx context.Context, a AttemptStart) context.Context
}

// WithObserver reports every operation and attempt of the client to o
// (see [Observer] and [AttemptStarter]). A nil o is refused.
func WithObserver(o Observer) Option {
	return func(c *config) error {
		if o == nil {
			return errors.New("client: WithObserver: nil Observer")
		}
		c.observer = o
		return nil
	}
}

// bankLabel names the bank in the observer's events: the name given with
// [WithBank], else the host (and port, when given) of the base URL. It is
// a bank's name, never a person's: WithBank takes printable ASCII only.
func (c *Client) bankLabel() string {
	if c.cfg.bank != "" {
		return c.cfg.bank
	}
	return c.base.Host
}

// hostPort returns u's host and port, the scheme's default port when u
// names none ([OperationStart.Host]).
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Outcome classifies how an operation or an attempt ended.
type Outcome uint8

// The outcome classes. Their String forms are the values the otel module
// writes in its "psd2.outcome" attribute.
const (
	// OutcomeOK is a 2xx answer to a call that creates nothing.
	OutcomeOK Outcome = iota + 1
	// OutcomeCreated is a usable 2xx answer to a call that is not
	// repeatable (a payment, a consent, a basket created).
	OutcomeCreated
	// OutcomeRefused is a 4xx answer not classed below: the bank did not act.
	OutcomeRefused
	// OutcomeSCARequired is an answer asking for the PSU's strong customer
	// authentication ([ErrSCARequired]).
	OutcomeSCARequired
	// OutcomeRateLimited is the bank's 429.
	OutcomeRateLimited
	// OutcomeBudgetRefused is a call the SDK refused before sending
	// because the without-PSU budget was spent (docs/interface.md section 8).
	OutcomeBudgetRefused
	// OutcomeNotSent is a call or attempt no byte of which left the machine.
	OutcomeNotSent
	// OutcomeUnknown is a call that is not repeatable which may have reached
	// the bank without a usable answer ([ErrOutcomeUnknown]).
	OutcomeUnknown
	// OutcomeFailed is any other failure: a 5xx or a transport error of a
	// repeatable call, an answer that could not be read or verified.
	OutcomeFailed
)

var outcomeNames = [...]string{"", "ok", "created", "refused", "sca_required", "rate_limited",
	"budget_refused", "not_sent", "unknown", "failed"}

// String returns the class's name, such as "rate_limited".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	return "invalid"
}

// OperationStart describes an operation as it begins.
type OperationStart struct {
	// Operation is the SDK call, such as "payments.Status".
	Operation string
	// Method is the HTTP method.
	Method string
	// Route is the path with every id replaced by a placeholder
	// ("/v1/consents/{id}/status"): never an id.
	Route string
	// Bank names the bank: the name given with [WithBank] (the bank's id
	// in the bank directory, for the clients package banks makes), else
	// the host (and port, when given) of the bank's base URL.
	Bank string
	// Host is the host and port of the bank's base URL, the port its
	// scheme's default (443 for https, 80 for http) when the URL names
	// none, such as "bank.example:443": where the requests go, for the
	// HTTP client semantic conventions' server.address and server.port.
	// Unlike Bank it never holds the name given with [WithBank].
	Host string
	// Repeatable reports whether the client may send the call again.
	Repeatable bool
	// Start is when the operation began.
	Start time.Time
}

// AttemptStart describes an attempt as it begins (see [AttemptStarter]).
type AttemptStart struct {
	OperationStart
	// Attempt is the attempt's number, from 1.
	Attempt int
	// Start is when the attempt began, before its request was built and
	// signed.
	Start time.Time
}

// AttemptEvent describes one attempt of an operation, once it ended.
type AttemptEvent struct {
	OperationStart
	// Attempt is the attempt's number, from 1.
	Attempt int
	// Start is when the request was handed to the transport (when the
	// attempt began, for one that never got that far); Duration runs from
	// Start to the end of the attempt: the end of its answer's body, or
	// its failure. Start plus Duration is when the attempt ended, before
	// the client decided what follows it.
	Start    time.Time
	Duration time.Duration
	// Sent reports whether a byte of the attempt may have left the machine.
	Sent bool
	// StatusCode is the answer's HTTP status, 0 without an answer.
	StatusCode int
	// Codes are the tppMessage codes of a non-2xx answer (see [Codes]).
	Codes []string
	// Outcome classes the attempt alone.
	Outcome Outcome
	// ErrorType names a failure without an answer from a closed set
	// ([ErrorTypes]): "timeout", "canceled", "transport",
	// "answer_too_large", "local" (signing, credentials), "" for none.
	ErrorType string
	// Retry reports whether another attempt follows.
	Retry bool
}

// OperationEvent describes an operation that ended.
type OperationEvent struct {
	OperationStart
	// Duration is the operation's duration, waits between attempts
	// included.
	Duration time.Duration
	// Attempts is the number of attempts made (0: refused before any).
	Attempts int
	// Sent reports whether a byte of any attempt may have left the machine.
	Sent bool
	// StatusCode is the HTTP status the operation ended with, 0 without one.
	StatusCode int
	// Codes are the tppMessage codes of the answer it ended with (see [Codes]).
	Codes []string
	// Outcome classes the operation.
	Outcome Outcome
	// BudgetLeft is the number of calls the without-PSU budget had left
	// after this call's last attempt counted, when BudgetCalls > 0.
	BudgetLeft int
	// BudgetCalls is the number of calls this operation counted against a
	// without-PSU budget (an accounts read without the PSU present): one,
	// and one more for each retry after an attempt that may have reached
	// the bank. A call refused by the budget counts none.
	BudgetCalls int
}

// Codes lists the tppMessage codes an event can carry (docs/interface.md
// section 7). A code the bank sends outside this list is reported as
// "OTHER", so that no text of the bank's, which could name a person, ever
// reaches an event.
var Codes = []string{CodeSystemError, CodeFormatError, CodeHTTPHeaderRequired, CodeCertificateInvalid,
	CodeCertificateExpired, CodeConsentUnknown, CodeConsentInvalid, CodeConsentExpired, CodeAccessExceeded,
	CodeProductUnknown, CodeProductInvalid, CodeKIDMissing, CodeKIDInvalid, CodePaymentFailed,
	CodeExecutionDateInvalid, CodeReferenceMixInvalid, CodeResourceUnknown, CodeCancellationInvalid,
	CodeSCAInvalid, CodeSCAExpired, "SERVICE_INVALID", "SERVICE_BLOCKED", "PERIOD_INVALID",
	"PARAMETER_NOT_SUPPORTED", "TIMESTAMP_INVALID", "STATUS_INVALID", "SIGNATURE_INVALID",
	"SIGNATURE_MISSING", "TOKEN_INVALID", "TOKEN_EXPIRED", "REQUESTED_FORMATS_INVALID",
	"BAD_REQUEST", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "QUERY_PARAMETER_REQUIRED", "SCA_NOT_FOUND",
	"PSU_CREDENTIALS_INVALID", "PARAMETER_NOT_CONSISTENT", "RESOURCE_EXPIRED", "CORPORATE_ID_INVALID"}

var knownCodes = func() map[string]string {
	m := make(map[string]string, len(Codes))
	for _, c := range Codes {
		m[c] = c
	}
	return m
}()

// SafeCode returns code when it is one of the interface's codes
// ([Codes]), and "OTHER" for anything else a bank sent in its place: the
// form of a bank's code that may be logged, stored or exported (events,
// OpenTelemetry, River's job records), since a code field can carry any
// text, a person's name or national identity number included. The empty
// code stays empty.
func SafeCode(code string) string {
	if code == "" {
		return ""
	}
	if c, ok := knownCodes[code]; ok {
		return c
	}
	return "OTHER"
}

// safeCodes maps the messages' codes into Codes, "OTHER" for the rest.
func safeCodes(msgs []TPPMessage) []string {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		c := SafeCode(m.Code)
		if c == "" {
			c = "OTHER"
		}
		out = append(out, c)
	}
	return out
}

// NoteBudgetLeft tells the observer of the operation running in ctx that
// one more call of it counted against a without-PSU budget, which has
// left calls left. Services that keep a budget call it from their [Hook]
// and BeforeRetry; without an observer it does nothing.
func NoteBudgetLeft(ctx context.Context, left int) {
	if s, ok := ctx.Value(observedKey{}).(*observed); ok {
		s.budgetLeft = left
		s.budgetCalls++
	}
}

type observedKey struct{}

// observed is the state of one observed operation. It is also the
// context the operation runs with (ctx with the state as its value for
// observedKey), so that an observed call allocates one object for both.
type observed struct {
	context.Context
	o           Observer
	starter     AttemptStarter // o, when it is one
	start       OperationStart
	attempts    int
	sent        bool
	budgetLeft  int
	budgetCalls int
}

// Value returns s for observedKey, else the value of the context it
// wraps.
func (s *observed) Value(key any) any {
	if key == (observedKey{}) {
		return s
	}
	return s.Context.Value(key)
}

// observeOperation starts reporting op; the returned state's end ends
// it, with the returned context.
func (c *Client) observeOperation(ctx context.Context, op *Operation) (context.Context, *observed) {
	s := &observed{Context: ctx, o: c.cfg.observer, start: OperationStart{Operation: op.Name, Method: op.Method,
		Route: routeTemplate(op.Path), Bank: c.bankLabel(), Host: c.hostPort, Repeatable: op.repeatable(), Start: time.Now()}}
	s.starter, _ = s.o.(AttemptStarter)
	ctx = s
	if octx := s.o.StartOperation(ctx, s.start); octx != nil { // nil: an observer that broke its contract
		ctx = octx
	}
	return ctx, s
}

// end reports the end of the operation, with what Client.Do returns.
func (s *observed) end(ctx context.Context, resp *Response, err error) {
	e := OperationEvent{OperationStart: s.start, Duration: time.Since(s.start.Start), Attempts: s.attempts,
		Sent: s.sent, BudgetLeft: s.budgetLeft, BudgetCalls: s.budgetCalls}
	if resp != nil {
		e.StatusCode = resp.StatusCode
	}
	e.Outcome, e.StatusCode, e.Codes = classify(s.start.Repeatable, resp, err, e.StatusCode)
	s.o.EndOperation(ctx, e)
}

// classify says how an operation ended.
func classify(repeatable bool, resp *Response, err error, status int) (Outcome, int, []string) {
	if err == nil { // before errors.As, whose targets escape
		if !repeatable {
			return OutcomeCreated, status, nil
		}
		return OutcomeOK, status, nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		status = ce.StatusCode
	}
	var codes []string
	if ce != nil {
		codes = safeCodes(ce.Messages)
	}
	var ou *OutcomeUnknownError
	if errors.As(err, &ou) && status == 0 {
		status = ou.StatusCode
	}
	var us *UnexpectedStatusError
	if errors.As(err, &us) && status == 0 {
		status = us.StatusCode
	}
	switch {
	case errors.Is(err, ErrNotSent):
		if errors.Is(err, ErrAccessExceeded) {
			return OutcomeBudgetRefused, status, codes
		}
		return OutcomeNotSent, status, codes
	case errors.Is(err, ErrOutcomeUnknown):
		return OutcomeUnknown, status, codes
	case ce != nil:
		return statusOutcome(ce.StatusCode, errors.Is(ce, ErrSCARequired)), status, codes
	}
	return OutcomeFailed, status, codes
}

// statusOutcome classes a non-2xx status.
func statusOutcome(status int, sca bool) Outcome {
	switch {
	case sca:
		return OutcomeSCARequired
	case status == http.StatusTooManyRequests:
		return OutcomeRateLimited
	case status >= 400 && status < 500:
		return OutcomeRefused
	}
	return OutcomeFailed
}

// attemptTimes is what an observed exchange keeps of its current attempt.
type attemptTimes struct {
	s         *observed // the operation's, nil when not observed
	began     time.Time // when the attempt began
	prevStart time.Time // exchange.start before the attempt
	end       time.Time // when the attempt ended
}

// startAttempt tells the observer, if any, that an attempt starts
// (AttemptStarter) and notes when it began. It returns the attempt's
// context: the one StartAttempt returned, else ctx. The loop calls
// exchange.run itself, so that an observer adds no frame to the path
// from a call to the transport.
func (x *exchange) startAttempt(ctx context.Context) context.Context {
	if x.c.cfg.observer == nil {
		return ctx
	}
	t := &x.times
	if t.s == nil {
		t.s, _ = ctx.Value(observedKey{}).(*observed)
	}
	t.began, t.prevStart = time.Now(), x.start
	if t.s == nil || t.s.starter == nil {
		return ctx
	}
	actx := t.s.starter.StartAttempt(ctx, AttemptStart{OperationStart: t.s.start, Attempt: x.attempt + 1, Start: t.began})
	if actx == nil { // an observer that broke its contract
		return ctx
	}
	return actx
}

// endAttempt notes when the attempt ended, for the observer, if any.
func (x *exchange) endAttempt() {
	if x.c.cfg.observer != nil {
		x.times.end = time.Now()
	}
}

// observe reports one attempt to the observer, if any, with the attempt's
// context (startAttempt).
func (x *exchange) observe(ctx context.Context, res attemptResult, retry bool) {
	s := x.times.s
	if x.c.cfg.observer == nil || s == nil {
		return
	}
	s.attempts++
	s.sent = s.sent || res.wrote
	a := AttemptEvent{OperationStart: s.start, Attempt: x.attempt, Sent: res.wrote, Retry: retry}
	a.Start = x.start
	if x.start.IsZero() || x.start.Equal(x.times.prevStart) {
		a.Start = x.times.began // never handed to the transport
	}
	a.Duration = x.times.end.Sub(a.Start)
	switch {
	case res.r != nil && res.err == nil:
		a.StatusCode = res.r.status
		if res.r.status >= 200 && res.r.status <= 299 {
			a.Outcome = OutcomeOK
			if !x.p.op.repeatable() {
				a.Outcome = OutcomeCreated
			}
			break
		}
		// Read as the call's error reads it: its Content-Encoding undone.
		e := newError(s.start.Operation, res.r.status, "", res.r.header, plainBody(res.r))
		a.Codes = safeCodes(e.Messages)
		a.Outcome = statusOutcome(res.r.status, errors.Is(e, ErrSCARequired))
	case !res.wrote:
		a.Outcome, a.ErrorType = OutcomeNotSent, errorType(res)
	default:
		a.Outcome, a.ErrorType = OutcomeFailed, errorType(res)
		if res.r != nil {
			a.StatusCode = res.r.status
		}
		if !x.p.op.repeatable() {
			a.Outcome = OutcomeUnknown
		}
	}
	s.o.ObserveAttempt(ctx, a)
}

// The values of [AttemptEvent.ErrorType].
const (
	ErrorTypeTimeout        = "timeout"          // the attempt's or the caller's deadline passed
	ErrorTypeCanceled       = "canceled"         // the caller cancelled
	ErrorTypeTransport      = "transport"        // the connection failed or was lost
	ErrorTypeAnswerTooLarge = "answer_too_large" // the answer passed the client's size limit
	ErrorTypeLocal          = "local"            // signing or credentials failed before sending
)

// ErrorTypes lists every value [AttemptEvent.ErrorType] can hold but the
// empty one. An observer exports only these ([SafeErrorType]).
var ErrorTypes = []string{ErrorTypeTimeout, ErrorTypeCanceled, ErrorTypeTransport, ErrorTypeAnswerTooLarge, ErrorTypeLocal}

// SafeErrorType returns t when it is empty or one of [ErrorTypes], and
// "_OTHER" for anything else, so that an observer handed an event built
// elsewhere never exports free text.
func SafeErrorType(t string) string {
	if t == "" || slices.Contains(ErrorTypes, t) {
		return t
	}
	return "_OTHER"
}

// errorType names an attempt's failure from [ErrorTypes].
func errorType(res attemptResult) string {
	var te *timeoutError
	switch {
	case res.err == nil:
		return ""
	case res.local:
		return ErrorTypeLocal
	case errors.As(res.err, &te), errors.Is(res.err, context.DeadlineExceeded):
		return ErrorTypeTimeout
	case errors.Is(res.err, context.Canceled):
		return ErrorTypeCanceled
	case errors.Is(res.err, ErrAnswerTooLarge):
		return ErrorTypeAnswerTooLarge
	}
	return ErrorTypeTransport
}
