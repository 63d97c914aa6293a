package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A payment POST that reached the bank and then lost its caller's
// context ends in ErrOutcomeUnknown and never also matches ErrNotSent,
// whatever cause the caller cancelled with: errgroup.WithContext cancels
// the group's context with the first error of the group as its cause,
// which is a *NotSentError when a sibling call was refused before it was
// sent, and net/http returns that cause as the attempt's error. The
// hook's Result says the call was sent (docs/design.md section 2: a
// failed call matches exactly one of the two sentinels). Before the fix
// the error matched both sentinels and Result.Sent was false, so a
// journal recorded the create as not sent.
func TestOutcomeUnknownWhateverTheCallerCause(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		close(arrived)
		<-r.Context().Done() // the bank acts, the answer never comes
	})
	c := newTestClient(t, b.URL)
	// A sibling call refused before it was sent: its error is the cause.
	_, sibling := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Refuse: io.ErrUnexpectedEOF}, nil)
	require.ErrorIs(t, sibling, ErrNotSent)

	ctx, cancel := context.WithCancelCause(t.Context())
	go func() {
		<-arrived
		cancel(sibling)
	}()
	var got Result
	op := Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}, ResultID: "paymentId",
		Hook: func(context.Context, *Call) (func(Result), error) { return func(r Result) { got = r }, nil }}
	_, err := c.Do(ctx, op, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, ErrNotSent, "%v", err)
	assert.True(t, got.Sent, "the hook is told the request was sent")
	assert.EqualValues(t, 1, b.count.Load())
}

// The other way round: a payment POST stopped before any byte of it left,
// because its caller's context was cancelled with an *OutcomeUnknownError
// (a sibling payment's) as the cause, ends in ErrNotSent alone. Before
// the fix the error matched ErrOutcomeUnknown too, and errors.As found
// the sibling's *OutcomeUnknownError with its X-Request-ID.
func TestNotSentWhateverTheCallerCause(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	sibling := &OutcomeUnknownError{Operation: "payments.Create", RequestID: "sibling"}
	ctx, cancel := context.WithCancelCause(t.Context())
	op := Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}, ResultID: "paymentId",
		// The caller's context ends after the call was admitted.
		Hook: func(context.Context, *Call) (func(Result), error) { cancel(sibling); return nil, nil }}
	_, err := c.Do(ctx, op, nil)
	require.ErrorIs(t, err, ErrNotSent)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "%v", err)
	var ou *OutcomeUnknownError
	assert.False(t, errors.As(err, &ou))
	assert.Zero(t, b.count.Load())
}
