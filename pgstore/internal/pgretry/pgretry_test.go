package pgretry

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unsentErr is an error pgconn.SafeToRetry reports safe to retry, as
// pgx's "write failed" of a dead connection.
type unsentErr struct{}

func (unsentErr) Error() string     { return "write failed: broken pipe" }
func (unsentErr) SafeToRetry() bool { return true }

// Unsent runs an attempt again only when it failed unsent with an error
// safe to retry, at most the bound's attempts in all, and not once ctx
// has ended.
func TestUnsent(t *testing.T) {
	t.Parallel()
	three := func() int { return 3 }
	// failing returns an attempt that fails with errs in turn (unsent as
	// told), then succeeds, and counts its calls.
	failing := func(calls *int, unsent bool, errs ...error) func() (bool, error) {
		return func() (bool, error) {
			*calls++
			if *calls <= len(errs) {
				return unsent, errs[*calls-1]
			}
			return false, nil
		}
	}
	safe := unsentErr{}
	require.True(t, pgconn.SafeToRetry(safe))

	var n int
	require.NoError(t, Unsent(t.Context(), three, failing(&n, true, safe, safe)))
	assert.Equal(t, 3, n, "two dead connections, then a live one")

	n = 0
	err := Unsent(t.Context(), three, failing(&n, true, safe, safe, safe, safe))
	assert.Equal(t, 3, n, "bounded")
	assert.Equal(t, safe, err)

	n = 0
	err = Unsent(t.Context(), three, failing(&n, false, safe))
	assert.Equal(t, 1, n, "a failure at a later send is not retried")
	assert.Equal(t, safe, err)

	other := &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
	n = 0
	err = Unsent(t.Context(), three, failing(&n, true, other))
	assert.Equal(t, 1, n, "an error that may have followed a send is not retried")
	assert.Same(t, other, err)

	ctx, cancel := context.WithCancel(t.Context())
	n = 0
	err = Unsent(ctx, three, func() (bool, error) { n++; cancel(); return true, safe })
	assert.Equal(t, 1, n, "no attempt after ctx ended")
	assert.Equal(t, safe, err)
}

// Statement runs a single statement again while its error is safe to
// retry (wrapped, as the callers' errors are), at most the pool's size
// plus one times, and never after any other error.
func TestStatement(t *testing.T) {
	t.Parallel()
	// The pool never connects: no statement of the test uses it.
	cfg, err := pgxpool.ParseConfig("host=/nonexistent dbname=none")
	require.NoError(t, err)
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	safe := unsentErr{}

	n := 0
	err = Statement(t.Context(), pool, func() error {
		n++
		if n < 3 {
			return errors.Join(errors.New("pgstore: outbox stats"), safe)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, n, "two dead connections, then a live one")

	n = 0
	err = Statement(t.Context(), pool, func() error { n++; return safe })
	assert.Equal(t, 3, n, "bounded by the pool's size plus one")
	assert.Equal(t, safe, err)

	for _, other := range []error{
		&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"},
		errors.New("unexpected EOF"),
	} {
		n = 0
		err = Statement(t.Context(), pool, func() error { n++; return other })
		assert.Equal(t, 1, n, "%v: may have reached the server, never retried", other)
		assert.Same(t, other, err)
	}
}
