package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestDisplacedHeldCreditIsReported: a credit freed by its payment's
// rejection settles a twin holding a credit booked in the future; the
// held credit, let go and matching no other payment, is reported
// unmatched by the next Apply (Status has no Round), once. Before, it
// was let go without any report: no round, no event, no state.
func TestDisplacedHeldCreditIsReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	c := credit("c", "2026-03-16", nok("1250.00"), "KID "+futureKID)
	require.Equal(t, []string{"p1=" + string(c.Key)}, keys(f.apply(c).Settled))
	ahead := credit("ahead", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Equal(t, "p2", r.Held[0].Payment)
	require.Equal(t, ahead.Key, r.Held[0].HeldBooking)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	st := f.state("p2")
	assert.Equal(t, reconcile.Settled, st.Settlement, "the freed credit proves p2's money arrived")
	assert.Equal(t, c.Key, st.Booking)
	assert.Empty(t, st.HeldBooking)

	r = f.apply() // the next read of the account, nothing new in it
	require.Len(t, r.Unmatched, 1, "the held credit let go is reported")
	assert.Equal(t, reconcile.Credit{Key: ahead.Key, BookingDate: day("2026-03-19"), Amount: nok("1250.00")}, r.Unmatched[0])
	assert.Empty(t, f.apply().Unmatched, "once")

	f.at("2026-03-18")
	r = f.apply()
	assert.Empty(t, r.Unmatched)
	assert.Empty(t, r.Settled)
}

// TestUnreportedCreditStateReadBack: a state keeping a credit to report
// is written in the third form (an earlier release refuses it as a later
// state, never drops the credit), read by another replica, and its
// report made by the first Apply of either.
func TestUnreportedCreditStateReadBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	f.apply(credit("c", "2026-03-16", nok("1250.00"), "KID "+futureKID))
	_, err := f.r.Apply(t.Context(), future(credit("ahead", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	b, err := f.st.Get(t.Context(), "reconcile/account/"+string(acct))
	require.NoError(t, err)
	assert.Equal(t, byte(3), b[0], "the third form")
	again, err := reconcile.Reencode(b)
	require.NoError(t, err)
	assert.Equal(t, b, again)

	other := f.reconciler()
	r, err := other.Apply(t.Context(), &txsync.Delta{Account: acct})
	require.NoError(t, err)
	assert.Len(t, r.Unmatched, 1)
	b, err = f.st.Get(t.Context(), "reconcile/account/"+string(acct))
	require.NoError(t, err)
	assert.Equal(t, byte(2), b[0], "reported: the third form no longer needed (p1's settlement was withdrawn)")
	assert.Empty(t, f.apply().Unmatched)
}

// TestRejectedPaymentsHeldCreditIsReported: a payment rejected while a
// credit booked in the future is held for it, with no twin to take the
// credit, lets it go: the next Apply reports it unmatched, once. Before,
// it was let go without any report.
func TestRejectedPaymentsHeldCreditIsReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("ahead", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
	r = f.apply()
	assert.Equal(t, []reconcile.Credit{{Key: ahead.Key, BookingDate: day("2026-03-19"), Amount: nok("1250.00")}}, r.Unmatched)
	assert.Empty(t, f.apply().Unmatched, "once")
	assert.Empty(t, f.col.events(), "it settled nothing")
}

// TestUnreportedCreditTakenIsNotReported: a held credit let go by a
// rejection, kept to report, that the bank changes before the next read
// so that it now settles a payment, is settled, not also reported
// unmatched; one the bank withdraws before the next read is let go, as a
// withdrawn held credit is.
func TestUnreportedCreditTakenIsNotReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("ahead", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	_, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	f.pay("p2", nok("1250.00"), futureKID, "")

	fixed := credit("ahead", "2026-03-16", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Dates}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"p2=" + string(ahead.Key)}, keys(r.Settled))
	assert.Empty(t, r.Unmatched, "settled, not unmatched")

	t.Run("withdrawn", func(t *testing.T) {
		f := newFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), futureKID, "")
		_, err := f.r.Apply(t.Context(), future(ahead))
		require.NoError(t, err)
		require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
		r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Removed: []txsync.Removal{{Key: ahead.Key, Reason: txsync.BookedGone}}})
		require.NoError(t, err)
		assert.Empty(t, r.Unmatched, "the bank no longer lists it")
		assert.Empty(t, f.apply().Unmatched)
	})
}

// TestUnreportedCreditKnownInAFirstRead: a credit kept to report that the
// next read, a first read (the sync's state started over), lists under a
// new key is reported under that key, the one the TPP's sync now knows.
func TestUnreportedCreditKnownInAFirstRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("ahead", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	_, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))

	d := firstReadOf(ahead)
	r, err := f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Repeated)
	assert.Equal(t, []reconcile.Credit{{Key: d.Added[0].Key, BookingDate: day("2026-03-19"), Amount: nok("1250.00")}}, r.Unmatched)
}
