package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
)

// TestFreedCreditKeepsItsHeldReversal: a payment settled by a credit,
// with a reversal of that credit held (booked in the future), is
// rejected; the freed credit settles its twin, and the reversal held
// goes with the credit: the twin holds it, and is returned on its date.
// Before, the reversal was dropped: the twin stayed settled though its
// money went back, and nothing reported the reversal.
func TestFreedCreditKeepsItsHeldReversal(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	f.pay("p2", nok("1250.00"), futureKID, "")
	f.at("2026-03-17")
	rev := credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(rev))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Equal(t, "p1", r.Held[0].Payment)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
	st := f.state("p2")
	assert.Equal(t, reconcile.Settled, st.Settlement, "the freed credit is the twin's")
	assert.Equal(t, rev.Key, st.HeldReversal, "and so is the reversal held of it")

	f.at("2026-03-25")
	r = f.apply()
	require.Len(t, r.Returned, 1)
	assert.Equal(t, "p2", r.Returned[0].Payment)
	assert.Equal(t, reconcile.Returned, f.state("p2").Settlement)
	assert.Equal(t, 1, returnedEvents(f.col))
}

// TestFreedCreditReturnedOnceItsReversalIsDue: the same, with the
// reversal's date no longer ahead when the rejection is read (no read of
// the account in between): the twin is returned at once.
func TestFreedCreditReturnedOnceItsReversalIsDue(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	f.pay("p2", nok("1250.00"), futureKID, "")
	f.at("2026-03-17")
	_, err := f.r.Apply(t.Context(), future(credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)

	f.at("2026-03-26")
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Equal(t, reconcile.Returned, f.state("p2").Settlement)
	assert.Equal(t, 1, returnedEvents(f.col))
}
