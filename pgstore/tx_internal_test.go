package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retry runs a transaction again after a serialization failure or a
// deadlock, and after nothing else; it gives up with a ContentionError
// after maxAttempts, and stops at once when ctx ends during a pause.
func TestRetry(t *testing.T) {
	t.Parallel()
	serialization := &pgconn.PgError{Code: serializationFailure, Message: "could not serialize access"}
	deadlock := &pgconn.PgError{Code: deadlockDetected, Message: "deadlock detected"}
	other := &pgconn.PgError{Code: "23505", Message: "duplicate key"}

	// failing returns an attempt that fails with errs in turn, then
	// succeeds, and counts its calls.
	failing := func(calls *int, errs ...error) func() error {
		return func() error {
			*calls++
			if *calls <= len(errs) {
				return errs[*calls-1]
			}
			return nil
		}
	}

	var n int
	require.NoError(t, retry(t.Context(), failing(&n, serialization, deadlock, serialization)))
	assert.Equal(t, 4, n, "three retryable failures, then success")

	n = 0
	err := retry(t.Context(), failing(&n, other, nil))
	assert.Equal(t, 1, n, "not retried")
	assert.Same(t, other, err)

	n = 0
	err = retry(t.Context(), failing(&n, errors.New("fn failed"), nil))
	assert.Equal(t, 1, n, "not retried")
	assert.EqualError(t, err, "fn failed")

	n = 0
	wrapped := func() error { n++; return errors.Join(errors.New("batch"), serialization) }
	err = retry(t.Context(), wrapped)
	assert.Equal(t, maxAttempts, n)
	var ce *ContentionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, maxAttempts, ce.Attempts)
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe, "the last error is kept")
	assert.Equal(t, serializationFailure, pe.Code)
	assert.Contains(t, err.Error(), "gave up after 10 attempts")
}

// When ctx ends during an attempt, retry returns that attempt's error and
// runs no other, however late the goroutine gets to run again (on a busy
// machine the first pause may be over by then).
func TestRetryStopsWhenCtxEnds(t *testing.T) {
	t.Parallel()
	deadlock := &pgconn.PgError{Code: deadlockDetected, Message: "deadlock detected"}
	for range 20 {
		ctx, cancel := context.WithCancel(t.Context())
		n := 0
		err := retry(ctx, func() error { n++; cancel(); return deadlock })
		require.Equal(t, 1, n, "no attempt after ctx ended")
		assert.Same(t, deadlock, err)
	}
}

// The pauses grow, stay within [ceiling/2, ceiling] and vary.
func TestBackoff(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 40; n++ {
		ceil := min(retryBase<<min(n-1, 16), retryMax)
		seen := map[time.Duration]bool{}
		for range 50 {
			d := retryWait(n)
			require.GreaterOrEqual(t, d, ceil/2, "retry %d", n)
			require.LessOrEqual(t, d, ceil, "retry %d", n)
			seen[d] = true
		}
		assert.Greater(t, len(seen), 1, "retry %d: jittered", n)
	}
}
