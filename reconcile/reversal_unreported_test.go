package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// heldReversalOfC1 is settledByC1 with a reversal d1 of c1 held
// (booked in the future, 2026-03-26), read on 2026-03-17.
func heldReversalOfC1(t *testing.T) (*fixture, txsync.Entry) {
	t.Helper()
	f := settledByC1(t)
	f.at("2026-03-17")
	d1 := credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(d1))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	return f, d1
}

// d1Reported is the report of the reversal d1.
func d1Reported(d1 txsync.Entry) []reconcile.Credit {
	return []reconcile.Credit{{Key: d1.Key, BookingDate: day("2026-03-26"), Amount: nok("-1250.00")}}
}

// TestChangedCreditHeldAgainWithItsReversal: the credit that settled a
// payment holding a reversal of it is changed by the bank to a date
// ahead, and txsync flags it booked in the future again: held again,
// with a reversal still reversing it, it is as a held credit a reversal
// is read for: let go and reported unmatched, with its reversal in
// Round.UnmatchedReversals; the payment waits. Before, the reversal was
// dropped, and the held credit settled the payment on its date though
// its money went back.
func TestChangedCreditHeldAgainWithItsReversal(t *testing.T) {
	t.Parallel()
	f, d1 := heldReversalOfC1(t)
	moved := credit("c1", "2026-03-20", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: moved, What: txsync.Dates}},
		Anomalies: []txsync.Anomaly{{Key: moved.Key, Kind: txsync.FutureBooked, Date: day("2026-03-20")}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	assert.Empty(t, r.Held, "a held credit whose reversal is read is let go")
	assert.Equal(t, []reconcile.Credit{{Key: moved.Key, BookingDate: day("2026-03-20"), Amount: nok("1250.00")}}, r.Unmatched)
	assert.Equal(t, d1Reported(d1), r.UnmatchedReversals)
	st := f.state("p1")
	assert.Equal(t, reconcile.Withdrawn, st.Settlement)
	assert.Empty(t, st.HeldBooking)

	f.at("2026-03-20")
	r = f.apply()
	assert.Empty(t, r.Settled, "the credit's money went back: it settles nothing")
	assert.Empty(t, r.UnmatchedReversals, "reported once")
}

// TestChangedCreditOfAnotherAmountReportsItsReversal: the credit, changed
// to another amount, settles the payment again, but the reversal held of
// it no longer reverses it: it is reported, not dropped.
func TestChangedCreditOfAnotherAmountReportsItsReversal(t *testing.T) {
	t.Parallel()
	f, d1 := heldReversalOfC1(t)
	fixed := credit("c1", "2026-03-16", nok("1200.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, reconcile.SettledOtherAmount, r.Settled[0].Settlement)
	assert.Empty(t, r.Settled[0].HeldReversal)
	assert.Equal(t, d1Reported(d1), r.UnmatchedReversals)
}

// TestWithdrawnCreditReportsItsReversal: the bank no longer lists the
// credit that settled a payment holding a reversal of it: the payment is
// withdrawn, and the reversal, let go with it, is reported.
func TestWithdrawnCreditReportsItsReversal(t *testing.T) {
	t.Parallel()
	f, d1 := heldReversalOfC1(t)
	r, err := f.r.Apply(t.Context(), removed(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	assert.Equal(t, d1Reported(d1), r.UnmatchedReversals)
	assert.Empty(t, f.state("p1").HeldReversal)
}

// TestFreedCreditWithoutTwinReportsItsReversal: a payment settled by a
// credit, with a reversal of it held, is rejected, and no twin takes the
// credit: the next Apply reports the credit unmatched and the reversal
// with it. Before, the credit was reported and the reversal dropped: the
// TPP saw money it does not hold.
func TestFreedCreditWithoutTwinReportsItsReversal(t *testing.T) {
	t.Parallel()
	f, d1 := heldReversalOfC1(t)
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	r := f.apply()
	assert.Equal(t, []reconcile.Credit{{Key: txsync.Key(string(acct) + "-c1"), BookingDate: day("2026-03-16"), Amount: nok("1250.00")}}, r.Unmatched)
	assert.Equal(t, d1Reported(d1), r.UnmatchedReversals)
	assert.True(t, f.apply().Empty(), "reported once")
}

// TestReversalOfHeldCreditReported: a reversal read for a credit still
// held lets the credit go, reported unmatched, and is reported with it.
func TestReversalOfHeldCreditReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	_, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	f.at("2026-03-17")
	d1 := credit("d1", "2026-03-20", nok("-1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(d1))
	require.NoError(t, err)
	require.Len(t, r.Unmatched, 1)
	assert.Equal(t, []reconcile.Credit{{Key: d1.Key, BookingDate: day("2026-03-20"), Amount: nok("-1250.00")}}, r.UnmatchedReversals)
}

// TestWithdrawnCreditAndItsReversal: the bank no longer lists the credit
// nor the reversal held of it: both are let go, the reversal not
// reported (the bank withdrew it, as a held reversal withdrawn).
func TestWithdrawnCreditAndItsReversal(t *testing.T) {
	t.Parallel()
	f, d1 := heldReversalOfC1(t)
	d := removed(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID))
	d.Removed = append(d.Removed, removed(d1).Removed...)
	r, err := f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	assert.Empty(t, r.UnmatchedReversals)
}
