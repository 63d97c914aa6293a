package events_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
)

// A status change without the payment's reference is refused, as
// PaymentError and ConsentError refuse an event without one: it would
// name no payment, and its ID (the kind and the new status alone) would
// be every such change's, so that the next payment followed without a
// reference would have its change dropped as published. On the code
// before, PaymentStatus published the first and dropped the second.
func TestPaymentStatusNeedsTheReference(t *testing.T) {
	t.Parallel()
	col := &collector{}
	em, err := events.NewEmitter(col.handler())
	require.NoError(t, err)
	require.Error(t, em.PaymentStatus(t.Context(), "", "RCVD", "ACSC"))
	require.Error(t, em.PaymentStatus(t.Context(), "", "ACTC", "ACSC"))
	assert.Empty(t, col.evs, "no event names no payment")
	// A change that is no change needs nothing, reference or not.
	require.NoError(t, em.PaymentStatus(t.Context(), "", "ACSC", "ACSC"))
}
