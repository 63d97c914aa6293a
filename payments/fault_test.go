package payments_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// A create whose outcome is unknown is never sent again: the emulator
// holds one payment or none, never two, and the caller gets
// ErrOutcomeUnknown with the request id. The deliberate retry of the
// reconciliation (same content, no AllowLogicalDuplicate) then leaves
// exactly one payment.
func TestFaultCreateOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fault   emulator.Fault
		timeout time.Duration
		created int // payments the emulator holds after the failed call; -1: one or none
		status  int // OutcomeUnknownError.StatusCode
	}{
		{"connection dropped after the body was read", emulator.Fault{Kind: emulator.FaultDropAfterBody}, 0, 1, 0},
		{"503", emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusServiceUnavailable}, 0, 0, http.StatusServiceUnavailable},
		{"500", emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusInternalServerError}, 0, 0, http.StatusInternalServerError},
		// The deadline leaves room for the request to be written even on a
		// loaded machine: a call cancelled before sending is not unknown.
		{"hang past the context deadline", emulator.Fault{Kind: emulator.FaultHang}, 2 * time.Second, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t)
			f := tc.fault
			f.Method, f.PathPrefix = http.MethodPost, "/v1/payments/"
			b.s.Control().InjectFault(f)

			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			id := uuid.NewString() // recorded before sending
			_, err := createWithID(ctx, b, "250.00", id)
			require.ErrorIs(t, err, client.ErrOutcomeUnknown)
			var ou *client.OutcomeUnknownError
			require.ErrorAs(t, err, &ou)
			assert.Equal(t, id, ou.RequestID)
			assert.Equal(t, "payments.CreateNorwegianDomestic", ou.Operation)
			assert.Equal(t, tc.status, ou.StatusCode)

			held := b.paymentsHeld()
			if tc.created >= 0 {
				assert.Len(t, held, tc.created)
			} else {
				assert.LessOrEqual(t, len(held), 1)
			}
			for _, p := range held {
				assert.Equal(t, id, p.RequestID, "the payment is found by the recorded request id")
			}

			// Reconcile: the same content again, without
			// AllowLogicalDuplicate. If the first reached the bank, the
			// bank refuses a logical duplicate.
			init, err := createWithID(t.Context(), b, "250.00", uuid.NewString())
			if len(held) == 1 {
				var e *client.Error
				require.ErrorAs(t, err, &e)
				assert.True(t, e.HasCode(client.CodePaymentFailed))
			} else {
				require.NoError(t, err)
				assert.Equal(t, payments.StatusRCVD, init.TransactionStatus)
			}
			assert.Len(t, b.paymentsHeld(), 1, "exactly one payment, never two")
		})
	}
}

// The client sends a create again only when it certainly never left:
// a dropped connection before processing is still unknown to the client
// (the body was sent), and nothing was created.
func TestFaultCreateDroppedBeforeProcessing(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	_, err := createWithID(t.Context(), b, "12.00", uuid.NewString())
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Empty(t, b.paymentsHeld(), "not processed, and not sent again")
}

// Status reads are GETs: injected 503s are retried to success.
func TestFaultStatusRetried(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "33.00"), b.pisp()...)
	require.NoError(t, err)
	b.authorize(t, init.SCARedirect())

	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: http.MethodGet, PathPrefix: "/v1/payments/", Count: 2})
	st, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)

	// 429 with Retry-After (the emulator writes at least 1 s) is retried too.
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, Method: http.MethodGet, PathPrefix: "/v1/payments/", RetryAfter: time.Millisecond})
	d, err := b.svc.Get(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, init.PaymentID, d.PaymentID)

	// Without retries the injected 503 reaches the caller: the retries
	// above were real.
	noRetry, err := payments.New(mustClient(t, b, client.RetryPolicy{}))
	require.NoError(t, err)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: http.MethodGet, PathPrefix: "/v1/payments/"})
	_, err = noRetry.Status(ctx, init.Ref(), b.pisp()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.False(t, errors.Is(err, client.ErrOutcomeUnknown), "a GET is safe to repeat")
}

// mustClient returns another client of the same TPP on b's emulator.
func mustClient(t *testing.T, b *bank, policy client.RetryPolicy) *client.Client {
	t.Helper()
	c, err := client.New(b.s.URL, b.c.Credentials(), client.WithHTTPClient(b.s.Client()), client.WithRetryPolicy(policy),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	return c
}
