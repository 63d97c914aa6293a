package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy says how often and how long the client retries requests that
// are safe to repeat (GET, DELETE, and a POST that certainly never left the
// machine). See DESIGN.md section 2.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0 turns
	// retries off.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the jittered exponential backoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps how long a Retry-After header is honoured. When
	// the bank asks for a longer wait, the client does not retry and
	// returns the answer (a *Error whose Header holds Retry-After), so the
	// caller can schedule the call.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is used when no WithRetryPolicy is given.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, MinBackoff: 200 * time.Millisecond, MaxBackoff: 5 * time.Second, MaxRetryAfter: 30 * time.Second}

func (p RetryPolicy) validate() error {
	if p.MaxRetries < 0 || p.MaxRetries > 100 || p.MinBackoff < 0 || p.MaxBackoff < p.MinBackoff || p.MaxRetryAfter < 0 {
		return errors.New("client: invalid RetryPolicy")
	}
	return nil
}

// backoff is the wait before retry n (0-based): exponential from MinBackoff,
// capped at MaxBackoff, with jitter in its upper half.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.MaxBackoff
	if n < 32 {
		if e := p.MinBackoff << n; e > 0 && e < d {
			d = e
		}
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date
// (measured against the bank's Date when known).
func retryAfter(h http.Header, server time.Time, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > int64(24*time.Hour/time.Second) {
			s = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(s) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if server.IsZero() {
		server = now
	}
	return max(t.Sub(server), 0), true
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
// Retry-After: the daily without-PSU budget of SERVICE.md 8 is spent, which
// no retry within the call can change, and each retry could count against
// it. A 429 that says when to come back (Retry-After, honoured up to the
// cap) is a passing rate limit and is retried. The body is peeked (up to
// 64 KiB) and restored for the caller.
func quotaExhausted(resp *http.Response) bool {
	if resp.StatusCode != http.StatusTooManyRequests || resp.Body == nil || resp.Header.Get("Retry-After") != "" {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return false
	}
	var doc struct {
		TPPMessages []TPPMessage `json:"tppMessages"`
	}
	if json.Unmarshal(head, &doc) != nil {
		return false
	}
	for _, m := range doc.TPPMessages {
		if m.Code == CodeAccessExceeded {
			return true
		}
	}
	return false
}

// exchange is the state of one call across its attempts. The hooks of
// go-retryablehttp run one after another on the caller's goroutine; only
// wrote is set from the transport's goroutines.
type exchange struct {
	c *Client
	p *prepared

	req      *http.Request // the current attempt
	attempt  int           // 1-based
	retries  int           // retries granted by the policy
	skewDone bool          // the clock-skew retry was used
	start    time.Time
	sentDate time.Time
	wait     time.Duration // decided by checkRetry, returned by backoff
	pending  bool          // a retry was decided and its attempt has not started
	wrote    atomic.Bool   // the current attempt wrote its headers
}

// retrier wires the exchange's hooks into go-retryablehttp, replacing all
// of its defaults: its logger is off, the bank's last answer is passed
// through, every retry is re-signed. RetryMax has one attempt more than
// the policy for the clock-skew rule; checkRetry enforces MaxRetries.
func (x *exchange) retrier() *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:     x.c.hc,
		Logger:         nil,
		RetryMax:       x.c.cfg.retry.MaxRetries + 1,
		RetryWaitMin:   x.c.cfg.retry.MinBackoff,
		RetryWaitMax:   x.c.cfg.retry.MaxBackoff,
		RequestLogHook: x.beforeAttempt,
		CheckRetry:     x.checkRetry,
		Backoff:        x.backoff,
		PrepareRetry:   x.prepareRetry,
		ErrorHandler:   retryablehttp.PassthroughErrorHandler,
	}
}

// trace records whether an attempt wrote anything, for the rule that a
// non-repeatable request is retried only when it certainly never left.
func (x *exchange) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaderField: func(string, []string) { x.wrote.Store(true) },
		WroteHeaders:     func() { x.wrote.Store(true) },
	})
}

func (x *exchange) beforeAttempt(_ retryablehttp.Logger, req *http.Request, i int) {
	x.req = req
	x.attempt = i + 1
	x.wrote.Store(false)
	x.pending = false
	x.start = time.Now()
}

func (x *exchange) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	elapsed := time.Since(x.start)
	var server time.Time
	if resp != nil {
		server, _ = x.c.learnClock(resp.Header)
	}
	retry := x.decide(ctx, resp, err, server)
	x.c.logAttempt(ctx, x.req, x.attempt, elapsed, resp, err, retry)
	return retry, nil
}

// decide is the retry policy of DESIGN.md section 2.
func (x *exchange) decide(ctx context.Context, resp *http.Response, err error, server time.Time) bool {
	if ctx.Err() != nil {
		return false
	}
	if resp != nil && !x.skewDone && retryForClockSkew(resp.StatusCode, x.sentDate, server) {
		x.skewDone = true
		x.wait = 0
		x.pending = true
		return true
	}
	pol := x.c.cfg.retry
	if x.retries >= pol.MaxRetries {
		return false
	}
	repeatable := x.p.op.repeatable()
	wait := pol.backoff(x.retries)
	switch {
	case err != nil:
		if !repeatable && !neverSent(err, x.wrote.Load()) {
			return false
		}
	case resp != nil && retryableStatus(resp.StatusCode):
		if !repeatable || quotaExhausted(resp) {
			return false
		}
		if ra, ok := retryAfter(resp.Header, server, x.c.now()); ok {
			if ra > pol.MaxRetryAfter {
				return false
			}
			wait = ra
		}
	default:
		return false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
		return false // the wait would outlast the call
	}
	x.retries++
	x.wait = wait
	x.pending = true
	return true
}

// neverSent reports whether a transport error certainly happened before
// any byte of the request left: the connection could not be dialled, and
// no header was written. Anything else may have reached the bank.
func neverSent(err error, wrote bool) bool {
	if wrote {
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (x *exchange) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return x.wait
}

// prepareRetry re-signs the next attempt with a fresh Date (and the
// credentials current now); body, URL and X-Request-ID stay the same.
func (x *exchange) prepareRetry(req *http.Request) error {
	req.Header = req.Header.Clone()
	return x.c.sign(req, x)
}

// failure turns the final error of go-retryablehttp into the call's
// error: an *OutcomeUnknownError when a non-repeatable request may have
// reached the bank, else the error wrapped with the operation name. When a
// retry was pending (the wait was cancelled, or re-signing failed), the
// last attempt was one that is safe to repeat, so nothing is unknown.
func (x *exchange) failure(err error) error {
	op := x.p.op
	if !op.repeatable() && !x.pending && !neverSent(err, x.wrote.Load()) {
		return &OutcomeUnknownError{Operation: op.Name, RequestID: x.p.requestID, Err: err}
	}
	return fmt.Errorf("%s: %w", op.Name, err)
}
