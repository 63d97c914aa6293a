package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// returnedEvents counts the payment.returned events of a collector.
func returnedEvents(c *collector) int {
	n := 0
	for _, ev := range c.events() {
		if _, ok := ev.(events.PaymentReturned); ok {
			n++
		}
	}
	return n
}

// settledByC1 is a fixture whose payment p1 a credit c1 settled on
// 2026-03-16.
func settledByC1(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	require.Len(t, f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID)).Settled, 1)
	return f
}

// TestFutureBookedReversalHeld: a reversal of a settled payment that
// txsync flags booked in the future does not return it while its date is
// ahead: a return is final (a withdrawn reversal does not undo it), and a
// merchant told a paid payment came back may ask the payer again. It is
// held for the payment, which stays settled, and returns it at the first
// read from the day before its date on, with one payment.returned.
// Before, the flagged reversal returned the payment at once.
func TestFutureBookedReversalHeld(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	f.at("2026-03-17")
	r, err := f.r.Apply(t.Context(), future(credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	assert.Empty(t, r.Returned, "a reversal booked in the future returns nothing yet")
	require.Len(t, r.Held, 1)
	assert.Equal(t, reconcile.Settled, r.Held[0].Settlement)
	assert.Equal(t, txsync.Key(string(acct)+"-d1"), r.Held[0].HeldReversal)
	st := f.state("p1")
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Equal(t, day("2026-03-26"), st.HeldReversalDate)
	assert.Empty(t, st.Reversal)
	assert.Zero(t, returnedEvents(f.col))

	f.at("2026-03-24")
	assert.Empty(t, f.apply().Returned)
	f.at("2026-03-25") // a day ahead: txsync would no longer flag it
	r = f.apply()
	require.Len(t, r.Returned, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-d1"), r.Returned[0].Reversal)
	assert.Equal(t, day("2026-03-26"), r.Returned[0].ReversalDate)
	assert.Empty(t, r.Returned[0].HeldReversal)
	f.at("2026-03-26")
	assert.True(t, f.apply().Empty())
	assert.Equal(t, 1, returnedEvents(f.col))
}

// TestFutureBookedReversalWithdrawn: a held reversal the bank no longer
// lists is let go: the payment stays settled, nothing is returned on its
// date. One the bank changes to a date not ahead returns the payment.
func TestFutureBookedReversalWithdrawn(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	d1 := credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)
	_, err := f.r.Apply(t.Context(), future(d1))
	require.NoError(t, err)
	r, err := f.r.Apply(t.Context(), removed(d1))
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
	st := f.state("p1")
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Empty(t, st.HeldReversal)
	f.at("2026-03-26")
	assert.Empty(t, f.apply().Returned)
	assert.Zero(t, returnedEvents(f.col))

	f2 := settledByC1(t)
	_, err = f2.r.Apply(t.Context(), future(d1))
	require.NoError(t, err)
	fixed := credit("d1", "2026-03-16", nok("-1250.00"), "KID "+futureKID)
	r, err = f2.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Dates}}})
	require.NoError(t, err)
	require.Len(t, r.Returned, 1, "the corrected reversal returns the payment")
	assert.Equal(t, day("2026-03-16"), r.Returned[0].ReversalDate)
	assert.Empty(t, r.Withdrawn)
}

// TestFutureBookedReversalGenuineReversal: a reversal not flagged returns
// a payment holding a flagged one at once, and the held one is let go;
// one payment.returned.
func TestFutureBookedReversalGenuineReversal(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	_, err := f.r.Apply(t.Context(), future(credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	f.at("2026-03-17")
	r := f.apply(credit("d2", "2026-03-17", nok("-1250.00"), "KID "+futureKID))
	require.Len(t, r.Returned, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-d2"), r.Returned[0].Reversal)
	assert.Empty(t, r.Returned[0].HeldReversal)
	f.at("2026-03-25")
	assert.True(t, f.apply().Empty())
	assert.Equal(t, 1, returnedEvents(f.col))
}

// TestFutureBookedReversalStateReadBack: a state holding a reversal is
// written in the second form and reads back the same, on another
// replica too; the credit that settled the payment withdrawn, the held
// reversal goes with the settlement.
func TestFutureBookedReversalStateReadBack(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	_, err := f.r.Apply(t.Context(), future(credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	b, err := f.st.Get(t.Context(), "reconcile/account/"+string(acct))
	require.NoError(t, err)
	assert.Equal(t, byte(2), b[0], "the second form")
	again, err := reconcile.Reencode(b)
	require.NoError(t, err)
	assert.Equal(t, b, again)
	st, err := f.reconciler().Payment(t.Context(), "p1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Equal(t, day("2026-03-26"), st.HeldReversalDate)

	r, err := f.r.Apply(t.Context(), removed(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	assert.Empty(t, r.Withdrawn[0].HeldReversal)
	f.at("2026-03-26")
	assert.Empty(t, f.apply().Returned)
}

// TestFutureBookedReversalTwins: of twins settled (one KID), the first
// holding a reversal dated ahead, a reversal not flagged returns the
// other at once: the held one stays, and returns the first on its date.
// Each is returned once.
func TestFutureBookedReversalTwins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	require.Len(t, f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID),
		credit("c2", "2026-03-16", nok("1250.00"), "KID "+futureKID)).Settled, 2)
	r, err := f.r.Apply(t.Context(), future(credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	assert.Equal(t, "p1", r.Held[0].Payment)

	f.at("2026-03-17")
	r = f.apply(credit("d2", "2026-03-17", nok("-1250.00"), "KID "+futureKID))
	require.Len(t, r.Returned, 1)
	assert.Equal(t, "p2", r.Returned[0].Payment)
	assert.Equal(t, txsync.Key(string(acct)+"-d1"), f.state("p1").HeldReversal)

	f.at("2026-03-25")
	r = f.apply()
	require.Len(t, r.Returned, 1)
	assert.Equal(t, "p1", r.Returned[0].Payment)
	assert.Equal(t, 2, returnedEvents(f.col))
}
