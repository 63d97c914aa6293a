package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/internal/backoff"
)

// RetryPolicy says how often and how long the client retries requests that
// are safe to repeat (GET, DELETE), and a request of any kind that
// certainly never left the machine. See docs/design.md section 2.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0 turns
	// retries off.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the jittered exponential backoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps how long a Retry-After header is honoured. A
	// retry waits the longer of the backoff and the bank's Retry-After
	// (one of 0, or a date past, leaves the backoff). When
	// the bank asks for a longer wait, the client does not retry and
	// returns the answer (a *Error whose Header holds Retry-After), so the
	// caller can schedule the call.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy used when no WithRetryPolicy is
// given: 3 retries, backoff from 200 ms to 5 s, Retry-After honoured up to
// 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, MinBackoff: 200 * time.Millisecond, MaxBackoff: 5 * time.Second, MaxRetryAfter: 30 * time.Second}
}

func (p RetryPolicy) validate() error {
	if p.MaxRetries < 0 || p.MaxRetries > 100 || p.MinBackoff < 0 || p.MaxBackoff < p.MinBackoff || p.MaxRetryAfter < 0 {
		return errors.New("client: invalid RetryPolicy")
	}
	return nil
}

// backoff is the wait before retry n (0-based): exponential from MinBackoff,
// capped at MaxBackoff, with jitter in its upper half.
func (p RetryPolicy) backoff(n int) time.Duration {
	return backoff.Jitter(backoff.Exp(n, p.MinBackoff, p.MaxBackoff))
}

// RetryAfterCap is the longest wait a bank's Retry-After can ask for, in
// whatever form it comes: a longer one, in seconds (however many digits)
// or as an HTTP date (a year ahead, or in year 9999), means this. Beyond
// it a wait means the same to every part of the SDK (the client retries
// only within RetryPolicy.MaxRetryAfter; the accounts pause, refresh's
// RetryAt and riverrefresh's paused queue and snoozed job all end within
// it), and it keeps every time computed from it, now.Add(wait), far from
// the limits of time.Time and of int64 nanoseconds. ASSUMPTION (the safe
// option): no bank means to be left alone for more than a day; one that
// does answers 429 again.
const RetryAfterCap = 24 * time.Hour

// retryAfter is the one reading of a Retry-After header in the SDK
// ([Error.RetryAfter] and the client's retries use it): the wait it asks
// for, between 0 and [RetryAfterCap], and whether there was a readable
// one. The header is delta-seconds (a non-negative integer: beyond int64
// it is the cap, not an absent header) or an HTTP date (read as the Date
// header is, httpDate: in GMT only), measured against
// server (the bank's Date, when known) or else now: a date in the past
// is a wait of 0, one beyond the cap is the cap. An empty, negative or
// otherwise unreadable value is no Retry-After (false).
//
// Retry-After is one value, but an answer may carry it on several field
// lines (a gateway adding its own to the bank's): the longest readable
// wait among them is the answer's, whatever their order. Reading the
// first line alone made "0" then "86400" a retry at once, and an
// Error.RetryAfter of 0 to every caller that schedules by it.
func retryAfter(h http.Header, server time.Time, now time.Time) (wait time.Duration, ok bool) {
	for _, v := range h.Values("Retry-After") {
		if d, readable := retryAfterValue(v, server, now); readable {
			wait, ok = max(wait, d), true
		}
	}
	return wait, ok
}

// retryAfterValue reads one Retry-After field line, as retryAfter says.
func retryAfterValue(v string, server time.Time, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) && s > 0 {
		err = nil // ParseInt returned the int64 maximum
	}
	if err == nil {
		if s < 0 {
			return 0, false
		}
		if s >= int64(RetryAfterCap/time.Second) {
			return RetryAfterCap, true
		}
		return time.Duration(s) * time.Second, true
	}
	t, ok := httpDate(v)
	if !ok {
		return 0, false
	}
	if server.IsZero() {
		server = now
	}
	// Sub saturates at the limits of time.Duration rather than
	// overflowing: the clamp below is all the bound needs.
	return min(max(t.Sub(server), 0), RetryAfterCap), true
}

// retryableStatus lists the answers a repeatable request is retried on.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// quotaExhausted reports whether a 429 is ACCESS_EXCEEDED without a
// Retry-After: the daily without-PSU budget (docs/interface.md section 8)
// is spent, which no retry within the call can change, and each retry
// could count against it. A 429 that says when to come back (Retry-After,
// honoured up to the cap) is a passing rate limit and is retried. The
// body is read as the call's error reads it (newError): its
// Content-Encoding undone (a bank that gzips although the client asked
// for none) and its tppMessages in any form the error reads, and the
// answer is matched as the error matches ErrAccessExceeded (the code, or
// a 429 without tppMessages: a gateway's bare 429), so that no answer the
// caller gets as ACCESS_EXCEEDED was retried.
func quotaExhausted(r *reply) bool {
	if r.status != http.StatusTooManyRequests {
		return false
	}
	// The one reading of Retry-After: an unreadable one is none.
	if _, ok := retryAfter(r.header, time.Time{}, time.Now()); ok {
		return false
	}
	return newError("", r.status, "", nil, plainBody(r)).Is(ErrAccessExceeded)
}

// plainBody is r's body with its Content-Encoding undone, as the call's
// error reads it (Client.exchange): for the readers of an answer before
// the call ends (the retry loop, the observer). A body whose encoding
// cannot be undone says nothing (nil), there as in the call's error: its
// bytes, read as they came, must not prove a refusal (the clock-skew
// retry of a payment) nor a spent quota.
func plainBody(r *reply) []byte {
	b, _ := plainBodyCut(r)
	return b
}

// plainBodyCut is plainBody, saying whether the body was cut at
// maxErrorBody, as it came or once decoded (bankRefusal).
func plainBodyCut(r *reply) ([]byte, bool) {
	d, cut, err := decodeContent(r.header, r.body, r.status)
	switch {
	case err != nil:
		return nil, false
	case d != nil:
		return d, cut
	}
	return r.body, r.cut
}

// reply is an answer with its body read, within the limits of limits.go.
type reply struct {
	status int
	header http.Header
	body   []byte
	cut    bool // a non-2xx body cut at maxErrorBody
	// attempts is the number of attempts the call took, set on the
	// answer the call ends with (exchange.finish).
	attempts int

	// What Client.checkReply found, worked out once per answer: the
	// retry loop may need the verdict before Client.exchange does.
	checked bool
	decoded []byte // body with its Content-Encoding undone; nil: none
	// decodedCut: decoded was cut at maxErrorBody.
	decodedCut bool
	decodeErr  error
	verifyErr  error
}

// exchange is the state of one call across its attempts. The loop in
// Client.send runs on the caller's goroutine; only the per-attempt
// wrote flag is set from the transport's goroutines.
type exchange struct {
	c *Client
	p *prepared

	attempt  int           // 1-based number of the current attempt
	retries  int           // retries granted by the policy
	skewDone bool          // the clock-skew retry was used
	skew     time.Duration // offset to sign the skew retry with
	useSkew  bool
	sentDate time.Time // Date of the current attempt
	acted    bool      // some attempt may have been acted on by the bank
	// retryAfter is the bank's Retry-After the client waits before the
	// next retry (decide), 0 when it waits its own backoff.
	retryAfter time.Duration
	req        *http.Request
	start      time.Time
	sentAt     time.Time    // start on the client's clock, for the breaker's evidence
	times      attemptTimes // the observer's (observe.go)
}

// attemptResult is what one attempt ended with.
type attemptResult struct {
	r     *reply // nil when no response headers arrived
	err   error  // transport, timeout or body error; nil with a reply
	wrote bool   // a byte of the request may have left
	local bool   // failed before sending (signing, credentials)
	// early: the attempt ended before it was handed to the transport
	// (its context ended first): no bank saw it, and its time
	// (exchange.start) is an earlier attempt's, or none.
	early bool
	// cut: the attempt's time limit was cut below the response timeout
	// by the caller's deadline (attemptLimit); its timeout is then the
	// caller's, not the bank's (kindOf).
	cut bool
}

// status is the HTTP status of the attempt's answer, 0 without one.
func (r attemptResult) status() int {
	if r.r == nil || r.err != nil {
		return 0
	}
	return r.r.status
}

// send runs the attempts of one call and returns the last answer with its
// body read. Each attempt is built afresh and signed with a fresh Date;
// body, URL and X-Request-ID stay the same. The rules are those of
// docs/design.md section 2:
//   - an attempt that wrote no byte of its request is retried within the
//     policy, whatever its method, and a call none of whose attempts left
//     ends in a *NotSentError;
//   - a repeatable call is retried on transport errors, timeouts, bodies cut
//     short, 429, 502, 503 and 504 within the policy and the caller's
//     deadline;
//   - a retry after an attempt that may have reached the bank first runs
//     the operation's BeforeRetry, which can refuse it (the accounts
//     budget, which counts every attempt the bank may have counted);
//   - a call that is not repeatable is never sent again once a byte of it
//     may have left, save for the one clock-skew retry after a 400 that
//     proves nothing was done (and verifies, when the client checks the
//     bank's signatures), and ends in an *OutcomeUnknownError when it
//     got no usable answer. Its request can never be rewound below the
//     pipeline either (newRequest).
func (c *Client) send(ctx context.Context, p *prepared) (*reply, error) {
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	if !p.op.repeatable() {
		// A call that is not repeatable runs no longer than LongestCall
		// from here, right after its Hook, whatever the caller's context
		// (none, or a far deadline) and however long its credentials and
		// signing take (a remote KMS): a journal keeps its entry in
		// flight that long from its intent, and then another replica may
		// resolve it by sending it again. Credentials and signing get the
		// bound through the request's context, and an attempt that is
		// ready only once it passed is never handed to the transport
		// (run's check before it): ErrNotSent.
		// (The call timeout, by default shorter, usually bounds it
		// already: then no context of its own.)
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > c.LongestCall() {
			var stop context.CancelFunc
			ctx, stop = context.WithTimeout(ctx, c.LongestCall())
			defer stop()
		}
	}
	x := &exchange{c: c, p: p}
	for {
		actx := x.startAttempt(ctx) // observe.go
		res := x.run(actx)
		x.endAttempt()
		if res.wrote {
			p.sent++
		}
		if b := p.adm.b; b != nil {
			took := time.Since(x.start)
			k := kindOf(ctx, res, took, b.policy.AnswerWithin)
			ev := Evidence{Status: res.status()}
			if k.failed() { // the evidence of a downtime record
				ev.RequestID, ev.At, ev.Result, ev.Operation = p.requestID, x.sentAt, statusText(k, res), p.op.Name
			}
			b.record(ctx, k, ev, took, p.adm.seq)
		}
		wait, again := x.decide(ctx, res)
		if again && !p.adm.mayRetry() {
			again = false // the bank is unavailable: no more attempts
		}
		if again && res.wrote && !x.useSkew && x.p.op.BeforeRetry != nil {
			// The attempt may have counted at the bank: the next one
			// must be allowed first.
			call := x.p.call()
			// The Call is made once: an attempt without an answer must
			// not show the status of an earlier attempt's (a 429 would
			// make a lost connection look like a request to slow down).
			call.RetryStatus, call.RetryAfter = 0, x.retryAfter
			if res.r != nil {
				call.RetryStatus = res.r.status
			}
			again = x.p.op.BeforeRetry(ctx, call) == nil
		}
		x.log(ctx, res, again)
		x.observe(actx, res, again)
		if !again {
			return x.finish(res)
		}
		if wait > 0 && !backoff.Sleep(ctx, wait) {
			return x.finish(attemptResult{err: ctx.Err()})
		}
		if !p.adm.mayRetry() {
			// The breaker opened while this call waited: the retry
			// decided before is not sent, the last answer stands.
			return x.finish(res)
		}
	}
}

// run makes one attempt: build, sign, send, read the body, all within the
// attempt's time limits.
func (x *exchange) run(ctx context.Context) attemptResult {
	x.attempt++
	limit := x.attemptLimit(ctx)
	cut := limit < x.c.cfg.responseTimeout
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// What left is known from net/http's trace: a byte written, or the
	// body read. A transport that never reports GetConn (a caller's
	// RoundTripper that sends a copy of the request under another
	// context) tells nothing: its attempt may have left. A second
	// connection asked for after a write is a transport resending on its
	// own; for a request that is not repeatable it is stopped there: the
	// attempt is cancelled, and the connection net/http hands over all
	// the same (its getConn picks an idle one or the cancelled context
	// at random, and its write loop does not look at the context) is
	// closed before anything is written on it (gotConn).
	a := &attemptState{resendable: x.p.op.repeatable() && x.p.op.BeforeRetry == nil, cancel: cancel,
		headers: timeoutError{phase: "response headers", d: limit}, body: timeoutError{phase: "response body", d: limit}}
	defer func() { x.p.sent += int(a.resends.Load()) }() // the transport's own resends, after the attempt's own (send)
	a.trace = httptrace.ClientTrace{GetConn: a.getConn, GotConn: a.gotConn, WroteHeaderField: a.wroteField, WroteHeaders: a.setWrote, WroteRequest: a.wroteRequest}
	outer := httptrace.ContextClientTrace(actx)
	a.ownFieldHook = outer == nil || outer.WroteHeaderField == nil
	actx = httptrace.WithClientTrace(actx, &a.trace)
	req, err := x.c.newRequest(actx, x.p, x.attempt == 1)
	if err != nil {
		return attemptResult{err: redactURLError(err), local: true}
	}
	x.req = req
	if err := x.sign(req); err != nil {
		return attemptResult{err: err, local: true}
	}
	a.phase.Store(&a.headers)
	timer := time.AfterFunc(limit, a.expire)
	defer timer.Stop()
	if err := actx.Err(); err != nil {
		return attemptResult{err: context.Cause(actx), early: true} // nothing handed over
	}
	x.start, x.sentAt = time.Now(), x.c.cfg.clock()
	resp, err := x.c.hc.Do(req)
	if err != nil {
		err = redactURLError(err)
		switch cause := context.Cause(actx); cause {
		case &a.headers, errTransportResend:
			err = fmt.Errorf("%w (%w)", cause, err)
		}
		return attemptResult{err: err, wrote: a.wrote.Load() || bodyRead(req) || !a.reached.Load(), cut: cut}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 100 || resp.StatusCode > 599 {
		// No HTTP status (000, 999): the answer says nothing of what the
		// bank did and is not read; the request may have reached it.
		// Its code goes only into the error, never into a status field,
		// where 0 would read as no answer and 999 as a 5xx.
		return attemptResult{err: &StatusOutOfRangeError{StatusCode: resp.StatusCode}, wrote: true}
	}
	r := &reply{status: resp.StatusCode, header: resp.Header}
	if resp.StatusCode < 200 {
		// A 1xx that ends the exchange (101 Switching Protocols, which
		// net/http returns, though the request asked for no upgrade) has
		// no content (RFC 9110 section 15.2): its "body" is the
		// connection handed over, whose read no deadline would end. It
		// is not read; the deferred Close closes the connection.
		return attemptResult{r: r, wrote: true}
	}
	// The body phase: the same timer, restarted, unless it already ended
	// the headers phase (then the body read fails on the context).
	if timer.Stop() {
		a.phase.Store(&a.body)
		timer.Reset(limit)
	}
	// The read ends with the attempt's time limit whatever the body: one
	// whose Read does not watch the request's context (a caller's
	// transport's) is closed by the timer (expire), which ends the read.
	a.respBody.Store(&resp.Body)
	r.body, r.cut, err = readBody(resp.Body, resp.StatusCode)
	if err != nil {
		err = redactBankBytes(err) // a malformed chunk trailer's line
		if cause := context.Cause(actx); cause == &a.body {
			err = fmt.Errorf("%w (%w)", cause, err)
		}
		return attemptResult{r: r, err: fmt.Errorf("reading answer: %w", err), wrote: true, cut: cut}
	}
	return attemptResult{r: r, wrote: true}
}

// attemptState is what one attempt's trace and timer share with
// exchange.run, in one allocation.
type attemptState struct {
	wrote, reached atomic.Bool
	// resend: the transport asked for another connection after it
	// wrote a request that is not repeatable (getConn).
	resend atomic.Bool
	// resends counts the times the transport sent a repeatable request
	// again on its own after it was written (getConn): each is a request
	// the bank may have counted (Result.Attempts).
	resends atomic.Int32
	// resendable: the transport may send the request again on its own
	// (a repeatable request whose operation has no BeforeRetry). A
	// request that is not repeatable must not be sent twice, and one
	// with a BeforeRetry (a call the budget counts) is sent again only
	// with its consent, which the client's own loop asks for: the
	// transport's resend after a connection lost once the request was
	// written is a blind retry the bank may count.
	resendable bool
	cancel     context.CancelCauseFunc
	// phase is the time limit the timer ends the attempt with: headers,
	// then body.
	phase         atomic.Pointer[timeoutError]
	headers, body timeoutError
	trace         httptrace.ClientTrace
	// ownFieldHook: trace.WroteHeaderField is the attempt's alone (the
	// caller's context carries no trace that wants it too).
	ownFieldHook bool
	// respBody is the body being read in the body phase, which expire
	// closes: a body whose Read does not watch the request's context
	// would otherwise outlast the time limit.
	respBody atomic.Pointer[io.ReadCloser]
}

// getConn stops a transport that asks for a second connection after it
// wrote the request, when the request is not resendable: the attempt
// then ends, and the client's own loop decides on a retry (BeforeRetry
// included).
func (a *attemptState) getConn(string) {
	if a.reached.Swap(true) && a.wrote.Load() {
		if !a.resendable {
			a.resend.Store(true)
			a.cancel(errTransportResend)
			return
		}
		// A repeatable request the transport sends again on its own
		// (net/http, after its pooled connection broke once the request
		// was written): the bank may have received, and counted, both.
		a.resends.Add(1)
	}
}

// gotConn closes the connection a transport got for a resend that
// getConn cancelled: the cancellation alone does not stop net/http,
// which may still take an idle connection and write the request on it
// (Transport.getConn chooses between a ready connection and the done
// context at random; persistConn.writeLoop writes without looking at the
// context, and the close the context's end brings may come after the
// write). The hook runs before the connection is handed back to the
// transport, so nothing of the resend is written on it. An HTTP/2
// connection shared with other calls is closed with them; their requests
// end as a lost connection would end them, never sent twice.
func (a *attemptState) gotConn(info httptrace.GotConnInfo) {
	if a.resend.Load() && info.Conn != nil {
		_ = info.Conn.Close()
	}
}

func (a *attemptState) setWrote()                               { a.wrote.Store(true) }
func (a *attemptState) wroteRequest(httptrace.WroteRequestInfo) { a.wrote.Store(true) }

// wroteField records the first header field written (a byte may leave
// from there on: net/http flushes a long header as it writes it) and,
// when the hook is the attempt's alone, unhooks itself: net/http copies
// every header's values into a new slice for the hook, and the first
// field says all it can. It runs on the goroutine writing the request,
// the only one that reads the field.
func (a *attemptState) wroteField(string, []string) {
	a.wrote.Store(true)
	if a.ownFieldHook {
		a.trace.WroteHeaderField = nil
	}
}

// expire ends the attempt with the time limit of its phase, and closes
// the body being read, if any (respBody): net/http's bodies end their
// read on the cancelled context, a caller's transport's may not. (A
// second Close, the attempt's own, is harmless.)
func (a *attemptState) expire() {
	a.cancel(a.phase.Load())
	if b := a.respBody.Load(); b != nil {
		_ = (*b).Close()
	}
}

// attemptLimit is the time limit of the next attempt: the response
// timeout, or for a repeatable call with retries left at most half of the
// time before the caller's deadline (but at least minAttemptTimeout).
func (x *exchange) attemptLimit(ctx context.Context) time.Duration {
	d := x.c.cfg.responseTimeout
	if x.p.op.repeatable() && x.retries < x.c.cfg.retry.MaxRetries {
		if dl, ok := ctx.Deadline(); ok {
			if half := time.Until(dl) / 2; half < d {
				d = max(half, minAttemptTimeout)
			}
		}
	}
	return d
}

// sign signs the attempt, with the skew offset on the clock-skew retry.
func (x *exchange) sign(req *http.Request) error {
	now := x.c.now()
	if x.useSkew {
		now = x.c.cfg.clock().Add(x.skew)
	}
	if err := x.c.sign(req, now); err != nil {
		return err
	}
	x.sentDate = now
	return nil
}

// decide says whether to send another attempt and after what wait. It is
// the retry policy of docs/design.md section 2.
func (x *exchange) decide(ctx context.Context, res attemptResult) (time.Duration, bool) {
	x.retryAfter = 0
	var server time.Time
	if res.r != nil {
		// Under VerifyRequired only an answer that verifies may teach
		// the client the bank's clock.
		trusted := x.c.cfg.verifyMode != VerifyRequired ||
			res.err == nil && x.c.checkReply(res.r, x.p.requestID) == nil
		server, _ = x.c.observeClock(res.r.header, trusted)
	}
	skew := res.r != nil && res.err == nil && retryForClockSkew(res.r.status, x.sentDate, server)
	if skew && !x.p.op.repeatable() {
		// Only the bank's own 400 (its tppMessages) proves that nothing
		// was done; a bare 400 may be a gateway's after the bank acted
		// (bankRefusal), and a request that is not repeatable is not
		// sent again on it.
		body, cut := plainBodyCut(res.r)
		if !bankRefusal(res.r.status, body, cut, newError("", res.r.status, "", nil, body)) {
			skew = false
		}
	}
	if skew && x.c.checksSignatures() && x.c.checkReply(res.r, x.p.requestID) != nil {
		// A 400 that fails verification proves nothing was done: it
		// may be forged after the bank acted. No skew retry; the call
		// ends with the verification failure (Client.exchange).
		skew = false
	}
	if res.wrote && !skew {
		x.acted = true
	}
	if res.local || ctx.Err() != nil {
		return 0, false
	}
	if skew && !x.skewDone {
		if d, ok := x.c.skewOffset(server); ok {
			x.skewDone, x.skew, x.useSkew = true, d, true
			return 0, true
		}
	}
	x.useSkew = false
	pol := x.c.cfg.retry
	if x.retries >= pol.MaxRetries {
		return 0, false
	}
	repeatable := x.p.op.repeatable()
	wait := pol.backoff(x.retries)
	switch {
	case res.err != nil:
		if errors.Is(res.err, ErrAnswerTooLarge) {
			return 0, false // the same answer again
		}
		if res.wrote && !repeatable {
			return 0, false
		}
	case retryableStatus(res.r.status):
		if !repeatable || quotaExhausted(res.r) {
			return 0, false
		}
		if ra, ok := retryAfter(res.r.header, server, x.c.now()); ok {
			if ra > pol.MaxRetryAfter {
				return 0, false
			}
			// The bank's wait is the least one: a Retry-After of 0 or
			// of a date past (its clock behind) leaves the backoff, so
			// that a storm of such answers is not met with retries
			// back to back.
			wait, x.retryAfter = max(wait, ra), ra
		}
	default:
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait+minAttemptTimeout/10 {
		return 0, false // the wait would outlast the call
	}
	x.retries++
	return wait, true
}

// finish turns the last attempt into the call's result: its answer, or an
// error that says what became of the request.
func (x *exchange) finish(res attemptResult) (*reply, error) {
	if res.err == nil {
		res.r.attempts = x.attempt
		return res.r, nil
	}
	op := &x.p.op
	switch {
	case !x.acted:
		return nil, &NotSentError{Operation: op.Name, RequestID: x.p.requestID, Err: res.err}
	case !op.repeatable():
		e := &OutcomeUnknownError{Operation: op.Name, RequestID: x.p.requestID, Err: res.err}
		if res.r != nil {
			e.StatusCode = res.r.status
		}
		return nil, e
	}
	return nil, fmt.Errorf("%s: %w", op.Name, res.err)
}

// log reports the attempt to the caller's logger.
func (x *exchange) log(ctx context.Context, res attemptResult, retry bool) {
	if x.c.cfg.logger == nil || x.req == nil {
		return
	}
	var resp *http.Response
	if res.r != nil {
		resp = &http.Response{StatusCode: res.r.status, Header: res.r.header}
	}
	x.c.logAttempt(ctx, x.req, x.attempt, time.Since(x.start), resp, res.err, retry)
}

// newRequest builds one attempt's request. A repeatable request's body can
// be rewound (GetBody), so the transport may resend it; a request that is
// not repeatable gets a body that cannot be rewound, even when empty
// (neither nil nor http.NoBody, which HTTP/2 would treat as rewindable),
// so neither HTTP/1.1 nor HTTP/2 can resend it by themselves after
// RST_STREAM or GOAWAY: GetBody stays nil. A body that is not empty is an
// io.NopCloser over a *bytes.Reader, which net/http knows cannot block,
// so it writes the headers and a small body in one socket write (a body
// of another type makes it flush the headers first: two writes).
//
// The first attempt is signed in the call's own headers (p.header, made
// with room for the three signing adds): no copy for a call sent once.
// Nothing writes to them once it is handed to the transport; a later
// attempt signs a copy of them, so that the transport may still read the
// earlier attempt's while it does.
func (c *Client) newRequest(ctx context.Context, p *prepared, first bool) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, p.op.Method, p.url, nil)
	if err != nil {
		return nil, err
	}
	if first {
		req.Header = p.header
	} else {
		req.Header = p.header.Clone()
	}
	switch {
	case !p.op.repeatable() && len(p.body) == 0:
		req.Body = &onceBody{Reader: bytes.NewReader(nil)}
	case !p.op.repeatable():
		req.Body = io.NopCloser(bytes.NewReader(p.body))
		req.ContentLength = int64(len(p.body))
	case p.body != nil:
		body := p.body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req, nil
}

// onceBody is a request body that the transport cannot rewind. It
// records whether it was read: whoever read it may have sent it.
type onceBody struct {
	*bytes.Reader
	read atomic.Bool
}

// Read reads the body and records that it was read.
func (b *onceBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	return b.Reader.Read(p)
}

// Close does nothing.
func (*onceBody) Close() error { return nil }

// bodyRead reports whether req's body is a onceBody that was read (an
// empty body, which net/http may probe before it writes the headers). A
// body that is not empty is read only after the headers were written,
// which net/http's trace reports; a transport without the trace counts as
// having sent (Client.exchange's run).
func bodyRead(req *http.Request) bool {
	b, ok := req.Body.(*onceBody)
	return ok && b.read.Load()
}

// errTransportResend stops an attempt whose transport asks for another
// connection after it wrote the request: it is resending a request that
// must be sent once.
var errTransportResend = errors.New("the transport tried to send the request again")
