package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
)

// TestHeldCreditReversedInTheReadThatSettlesIt: a credit held (booked in
// the future) settles its payment in the read from the day before its
// date on; a reversal of it in that same read returns the payment. Before,
// the delta's debits were matched before the held credit settled its
// payment: the reversal found no settled payment and was dropped, and the
// payment stayed settled though its money went back.
func TestHeldCreditReversedInTheReadThatSettlesIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-18")
	r = f.apply(credit("d1", "2026-03-19", nok("-1250.00"), "KID "+futureKID))
	assert.Equal(t, []string{"p1=" + string(ahead.Key)}, keys(r.Settled))
	require.Len(t, r.Returned, 1, "the reversal returns the payment its held credit settles")
	assert.Equal(t, reconcile.Returned, f.state("p1").Settlement)
	assert.Equal(t, 1, settledEvents(f.col))
	assert.Equal(t, 1, returnedEvents(f.col))
}

// TestHeldCreditReversedWhileHeld: a reversal of a credit still held
// (both booked in the future, read before the credit's date) means the
// money does not stay: the held credit is let go, reported unmatched in
// that call, and settles nothing on its date; the payment waits (and
// stalls after its window: the safe side). Before, the reversal found no
// settled payment and was dropped, and the held credit settled the
// payment on its date though its money went back.
func TestHeldCreditReversedWhileHeld(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-17")
	r, err = f.r.Apply(t.Context(), future(credit("d1", "2026-03-20", nok("-1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	assert.Empty(t, r.Held)
	assert.Equal(t, []reconcile.Credit{{Key: ahead.Key, BookingDate: day("2026-03-19"), Amount: nok("1250.00")}}, r.Unmatched)
	st := f.state("p1")
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Empty(t, st.HeldBooking)

	f.at("2026-03-19")
	r = f.apply()
	assert.Empty(t, r.Settled)
	assert.Empty(t, r.Unmatched)
	assert.Zero(t, settledEvents(f.col))
}
