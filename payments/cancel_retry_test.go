package payments_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// A DELETE is retried by the client after an attempt that may have
// reached the bank (a dropped connection, a 502), but its answer is not
// idempotent: the first attempt may have cancelled the payment, and the
// retry then finds it CANC and is refused (405 CANCELLATION_INVALID).
// That refusal is no answer to the cancellation the caller asked for:
// Cancel returns an error matching ErrCancellationUnconfirmed (the
// bank's *client.Error inside), which says to read the status, not a
// bare refusal saying the payment was not cancelled. Before the fix
// Cancel returned the 405 alone while the emulator held the payment
// CANC. A refusal of a first attempt stays a refusal.
func TestCancelRetriedAfterAnAttemptThatMayHaveCancelled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault emulator.Fault
	}{
		{"connection dropped after the request was read", emulator.Fault{Kind: emulator.FaultDropAfterBody}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			b := newBank(t)
			init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "12.00"), b.pisp()...)
			require.NoError(t, err)
			f := tc.fault
			f.Method, f.PathPrefix = http.MethodDelete, "/v1/payments/"
			b.s.Control().InjectFault(f)

			c, err := b.svc.Cancel(ctx, init.Ref(), b.pisp()...)
			require.Equal(t, "CANC", b.paymentsHeld()[0].Status, "the first attempt cancelled it")
			assert.Nil(t, c)
			require.ErrorIs(t, err, payments.ErrCancellationUnconfirmed)
			var ce *client.Error
			require.ErrorAs(t, err, &ce, "the bank's refusal of the retry is kept inside")
			assert.True(t, ce.HasCode(client.CodeCancellationInvalid))
			assert.Contains(t, err.Error(), "read the payment's status")

			// A cancellation refused at its first attempt is a refusal.
			_, err = b.svc.Cancel(ctx, init.Ref(), b.pisp()...)
			require.ErrorAs(t, err, &ce)
			assert.NotErrorIs(t, err, payments.ErrCancellationUnconfirmed)
		})
	}
}
