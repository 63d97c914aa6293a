package client

import (
	"errors"
	"time"
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
	// MaxRetryAfter caps how long a Retry-After header is honoured.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is used when no WithRetryPolicy is given.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, MinBackoff: 200 * time.Millisecond, MaxBackoff: 5 * time.Second, MaxRetryAfter: 30 * time.Second}

func (p RetryPolicy) validate() error {
	if p.MaxRetries < 0 || p.MinBackoff < 0 || p.MaxBackoff < p.MinBackoff || p.MaxRetryAfter < 0 {
		return errors.New("client: invalid RetryPolicy")
	}
	return nil
}
