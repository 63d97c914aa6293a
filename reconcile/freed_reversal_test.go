package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
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

// TestChangedCreditKeepsItsHeldReversal: the credit that settled a
// payment holding a reversal of it (booked in the future) is changed by
// the bank (its date corrected) so that its settlement is withdrawn and
// it settles the payment again as it now is: the reversal, of the same
// amount, still reverses it, and is held again, returning the payment on
// its date. Before, the withdrawal dropped the reversal, and the payment
// stayed settled though its money went back.
func TestChangedCreditKeepsItsHeldReversal(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	f.at("2026-03-17")
	rev := credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)
	_, err := f.r.Apply(t.Context(), future(rev))
	require.NoError(t, err)

	fixed := credit("c1", "2026-03-17", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Dates}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	require.Len(t, r.Settled, 1, "settled again by the credit as it now is")
	st := f.state("p1")
	assert.Equal(t, day("2026-03-17"), st.BookingDate)
	assert.Equal(t, rev.Key, st.HeldReversal, "the reversal still reverses it")

	f.at("2026-03-25")
	r = f.apply()
	require.Len(t, r.Returned, 1)
	assert.Equal(t, reconcile.Returned, f.state("p1").Settlement)

	t.Run("another amount", func(t *testing.T) {
		f := settledByC1(t)
		f.at("2026-03-17")
		_, err := f.r.Apply(t.Context(), future(rev))
		require.NoError(t, err)
		fixed := credit("c1", "2026-03-16", nok("1200.00"), "KID "+futureKID)
		_, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
		require.NoError(t, err)
		st := f.state("p1")
		assert.Equal(t, reconcile.SettledOtherAmount, st.Settlement)
		assert.Empty(t, st.HeldReversal, "-1250.00 does not reverse 1200.00")
	})
}
