package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/tppkit/psd2/events"
)

// DefaultMaxAttempts is the number of failed attempts after which an
// outbox event becomes a dead letter, unless [WithOutboxMaxAttempts]
// says otherwise. With the default pauses ([DefaultRetryDelay]) the
// tenth failure comes about 85 minutes after the first: an outage of the
// handler's mailer or API shorter than that costs no dead letter.
const DefaultMaxAttempts = 10

// The pause after an outbox event's n-th failed attempt is
// min(DefaultRetryDelay·2ⁿ⁻¹, DefaultMaxRetryDelay), unless
// [WithOutboxRetryDelay] says otherwise: 10 s, 20 s, 40 s, ... 1 h.
const (
	DefaultRetryDelay    = 10 * time.Second
	DefaultMaxRetryDelay = time.Hour
)

// Bounds of the outbox, so that no event, batch or listing strains a
// consumer's memory or a transaction's locks.
const (
	// MaxEventDataLen is the largest events.Envelope.Data the outbox
	// keeps: far above any event of package events (a few hundred
	// bytes). [Outbox.Publish] refuses a larger one.
	MaxEventDataLen = 64 << 10
	// MaxEventIDLen bounds an envelope's ID, Key and Kind (package events
	// makes 32-character hashes and short kinds).
	MaxEventIDLen = 256
	// MaxConsumeBatch is the most events [Outbox.Consume] takes in one
	// transaction (and so [Outbox.Run] in one batch): a larger n takes
	// this many. With MaxEventDataLen it bounds a batch to 64 MiB of
	// event data.
	MaxConsumeBatch = 1000
)

// maxOutboxAttempts bounds [WithOutboxMaxAttempts].
const maxOutboxAttempts = 1000

// outboxConfig is the outbox's part of a Store's options.
type outboxConfig struct {
	maxAttempts          int
	firstDelay, maxDelay time.Duration
	observe              func(ctx context.Context, a OutboxAttempt)
	// rollbackWait is rollbackTimeout (a test's may be shorter).
	rollbackWait time.Duration
}

// rollbackTimeout bounds the rollback that ends a Consume batch that did
// not commit. It runs even when the consumer's context has ended (the
// consumer stopping), so that the connection goes back to the pool
// clean; a slow or hung database is given up on after it, and pgx then
// closes the connection, which ends the transaction as well. Without it
// a consumer stopping while its database hung would wait for ever.
const rollbackTimeout = 10 * time.Second

func defaultOutboxConfig() outboxConfig {
	return outboxConfig{maxAttempts: DefaultMaxAttempts, firstDelay: DefaultRetryDelay, maxDelay: DefaultMaxRetryDelay,
		rollbackWait: rollbackTimeout}
}

// rollbackContext is ctx without its end and with the rollbackTimeout
// bound: the context of the rollback that ends a batch.
func (c outboxConfig) rollbackContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.rollbackWait)
}

// retryDelay is the pause after the attempt-th failure (attempt >= 1).
func (c outboxConfig) retryDelay(attempt int) time.Duration {
	d := c.firstDelay
	for i := 1; i < attempt && d > 0 && d < c.maxDelay; i++ {
		d *= 2
	}
	return min(d, c.maxDelay)
}

// WithOutboxMaxAttempts makes an outbox event a dead letter when its
// n-th attempt fails (1 to 1000; [DefaultMaxAttempts] by default). Give
// every replica's Store the same value.
func WithOutboxMaxAttempts(n int) Option {
	return func(c *config) error {
		if n < 1 || n > maxOutboxAttempts {
			return fmt.Errorf("pgstore: outbox attempts %d is not between 1 and %d", n, maxOutboxAttempts)
		}
		c.outbox.maxAttempts = n
		return nil
	}
}

// WithOutboxRetryDelay sets the pause after an outbox event's failed
// attempt: first after the first failure, doubling after each one, at
// most limit ([DefaultRetryDelay] and [DefaultMaxRetryDelay] by
// default). Zero retries at once, which suits tests.
func WithOutboxRetryDelay(first, limit time.Duration) Option {
	return func(c *config) error {
		if first < 0 || limit < first || limit > 7*24*time.Hour {
			return fmt.Errorf("pgstore: outbox retry delay %v up to %v: want 0 <= first <= limit <= 168h", first, limit)
		}
		c.outbox.firstDelay, c.outbox.maxDelay = first, limit
		return nil
	}
}

// WithOutboxObserver calls fn with every attempt of [Outbox.Consume] and
// [Outbox.Run] to deliver an event, once its transaction committed (an
// attempt whose batch did not commit is not reported: it did not count).
// It is the outbox's metrics seam: count attempts by [OutboxOutcome] and
// kind in an OpenTelemetry counter, and log the handler's errors, which
// the outbox does not keep. fn runs on the consumer's goroutine, after
// the batch and before the next one: keep it short.
func WithOutboxObserver(fn func(ctx context.Context, a OutboxAttempt)) Option {
	return func(c *config) error {
		c.outbox.observe = fn
		return nil
	}
}

// OutboxAttempt is one attempt to deliver an outbox event, as
// [WithOutboxObserver] reports it. It holds no personal data except,
// perhaps, in Err, which is the TPP's own handler's.
type OutboxAttempt struct {
	// ID and Kind are the event's.
	ID   string
	Kind events.Kind
	// Attempt is 1 for the first attempt, and counts on from there; it
	// starts at 1 again after [Outbox.Retry].
	Attempt int
	// Outcome says what came of it.
	Outcome OutboxOutcome
	// Err is the handler's error; nil when delivered. An event stored
	// out of the outbox's bounds is given to no handler: its Err matches
	// [ErrStoredEventRefused], and its Outcome is OutboxDead.
	Err error
}

// OutboxOutcome is what came of an attempt to deliver an outbox event.
type OutboxOutcome string

// The outcomes of an attempt.
const (
	// OutboxDelivered: the handler succeeded; its writes committed with
	// the delivery.
	OutboxDelivered OutboxOutcome = "delivered"
	// OutboxRetry: the handler failed; the event will be taken again
	// after a pause.
	OutboxRetry OutboxOutcome = "retry"
	// OutboxDead: the handler failed on the last attempt allowed; the
	// event is a dead letter.
	OutboxDead OutboxOutcome = "dead"
)
