package client

import (
	"context"
	"fmt"
	"time"
)

// Default time limits of a call. A bank that accepts the connection and
// then says nothing must not hold a call for ever, even under
// context.Background().
const (
	// DefaultResponseTimeout bounds each attempt's wait for the response
	// headers, and then, afresh, its wait for the body.
	DefaultResponseTimeout = 10 * time.Second
	// DefaultCallTimeout bounds a whole call, its retries and backoff
	// included, when the caller's context has no deadline. A context with
	// a deadline is used as it is.
	DefaultCallTimeout = 30 * time.Second
	// minAttemptTimeout is the least an attempt is given when a repeatable
	// call shares the caller's remaining time among its attempts.
	minAttemptTimeout = time.Second
)

// WithResponseTimeout sets how long one attempt waits for the bank's
// response headers, and then for the body (default
// [DefaultResponseTimeout]). A repeatable call (GET, DELETE) that still
// has retries left gives an attempt at most half of the time left before
// the caller's deadline, so that a hung attempt leaves time for another.
// A request that is not repeatable (a payment POST) that times out ends
// the call with [ErrOutcomeUnknown].
func WithResponseTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("client: WithResponseTimeout(%v): must be positive", d)
		}
		c.responseTimeout = d
		return nil
	}
}

// WithCallTimeout sets the bound of a whole call whose context has no
// deadline (default [DefaultCallTimeout]); 0 turns it off, leaving only
// the per-attempt [WithResponseTimeout].
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("client: WithCallTimeout(%v): must not be negative", d)
		}
		c.callTimeout = d
		return nil
	}
}

// callContext applies the call timeout to a context without a deadline.
func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || c.cfg.callTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.cfg.callTimeout)
}

// timeoutError is the error of an attempt that got no answer within its
// time limit. It is a net.Error whose Timeout is true.
type timeoutError struct {
	phase string // "response headers" or "response body"
	d     time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("no %s within %v", e.phase, e.d)
}

// Timeout reports true.
func (e *timeoutError) Timeout() bool { return true }

// Temporary reports true: another attempt may be answered.
func (e *timeoutError) Temporary() bool { return true }

// dialBound is how long the SDK's own transport may take to connect: its
// dial timeout and its TLS handshake timeout (client.go).
const dialBound = 30*time.Second + 10*time.Second

// LongestCall returns how long one call of this client that is not
// repeatable (a payment create) may run at the longest, whatever its
// context's deadline: every attempt the retry policy allows (and the one
// clock-skew retry) connecting, waiting the response timeout for the
// headers and again for the body, and backing off. A journal keeps an
// entry without an outcome in flight at least this long, so that no
// replica resolves a create still under way. The client holds such a
// call to it: counted from the call's [Hook], credentials and signing
// (a remote key included) take from the same time, and an attempt not
// handed to the transport by then is not sent ([ErrNotSent]). With [WithCallTimeout]
// and a context without a deadline, a call ends sooner. A transport
// brought with [WithHTTPClient] is assumed to connect within the SDK's
// own dial and handshake timeouts (40 seconds).
func (c *Client) LongestCall() time.Duration {
	if c.longest > 0 {
		return c.longest
	}
	attempts := time.Duration(c.cfg.retry.MaxRetries + 2)
	return attempts*(dialBound+2*c.cfg.responseTimeout) + attempts*c.cfg.retry.MaxBackoff
}
