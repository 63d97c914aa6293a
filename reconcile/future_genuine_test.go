package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestFutureBookedCreditGenuineCreditSettles: while a payment holds a
// credit the bank dated ahead, a credit of the payment that txsync does
// not flag arrives: it proves the money arrived and settles the payment
// at once; the held credit is let go and, with no other payment waiting
// for it, reported unmatched then, once. On the held credit's date
// nothing more happens: one payment.settled. Before, the payment was not
// open, so the genuine credit was reported unmatched and the payment
// waited for the dubious one.
func TestFutureBookedCreditGenuineCreditSettles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-26", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-17")
	r = f.apply(credit("c2", "2026-03-17", nok("1250.00"), "KID "+futureKID))
	require.Len(t, r.Settled, 1, "the genuine credit settles the payment")
	assert.Equal(t, "p1", r.Settled[0].Payment)
	assert.Equal(t, txsync.Key(string(acct)+"-c2"), r.Settled[0].Booking)
	assert.Empty(t, r.Held)
	require.Len(t, r.Unmatched, 1, "the held credit, let go, matches no waiting payment")
	assert.Equal(t, reconcile.Credit{Key: txsync.Key(string(acct) + "-c1"), BookingDate: day("2026-03-26"), Amount: nok("1250.00")}, r.Unmatched[0])
	st := f.state("p1")
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Empty(t, st.HeldBooking)

	// The held credit's date: it settles nothing, it is not reported
	// again; its withdrawal withdraws nothing.
	f.at("2026-03-25")
	assert.True(t, f.apply().Empty())
	r, err = f.r.Apply(t.Context(), removed(credit("c1", "2026-03-26", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
	assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
	assert.Equal(t, 1, settledEvents(f.col), "one payment.settled")
}

// TestFutureBookedCreditGenuineCreditSameDelta: a delta brings a
// flagged credit that matches the payment by its KID and a genuine one
// that matches it by its text only (a weaker rule, tried after): the
// genuine credit settles it, the flagged one is reported unmatched, and
// the payment is not reported held.
func TestFutureBookedCreditGenuineCreditSameDelta(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "Faktura 4711")
	c1 := credit("c1", "2026-03-26", nok("1250.00"), "KID "+futureKID)
	c2 := credit("c2", "2026-03-16", nok("1250.00"), "Faktura 4711")
	d := future(c1)
	d.Added = append(d.Added, c2)
	r, err := f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-c2"), r.Settled[0].Booking)
	assert.Empty(t, r.Held, "settled in the same call: not held")
	require.Len(t, r.Unmatched, 1)
	assert.Equal(t, c1.Key, r.Unmatched[0].Key)
	assert.Equal(t, 1, settledEvents(f.col))
}

// TestFutureBookedCreditGenuineCreditTwins: two payments of one KID, the
// first holding a credit dated ahead; a genuine credit settles the
// first (initiation order), and the held credit goes to the second, held
// for it as a freed credit goes to a twin. Each settles once.
func TestFutureBookedCreditGenuineCreditTwins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Equal(t, "p1", r.Held[0].Payment)

	r = f.apply(credit("c2", "2026-03-16", nok("1250.00"), "KID "+futureKID))
	assert.Equal(t, []string{"p1=" + string(acct) + "-c2"}, keys(r.Settled))
	require.Len(t, r.Held, 1)
	assert.Equal(t, "p2", r.Held[0].Payment)
	assert.Empty(t, r.Unmatched)
	assert.Equal(t, txsync.Key(string(acct)+"-c1"), f.state("p2").HeldBooking)

	f.at("2026-03-18")
	r = f.apply()
	assert.Equal(t, []string{"p2=" + string(acct) + "-c1"}, keys(r.Settled))
	f.at("2026-03-19")
	assert.True(t, f.apply().Empty())
	assert.Equal(t, 2, settledEvents(f.col), "one payment.settled each")
}

// TestFutureBookedCreditTakenByAFreedCredit: a genuine credit freed by
// its payment's rejection goes to the twin, though the twin holds a
// credit dated ahead: the twin settles with the money that arrived and
// the held credit is let go. Before, the freed credit settled nothing
// and the twin waited for the dubious one.
func TestFutureBookedCreditTakenByAFreedCredit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	r := f.apply(credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID))
	require.Len(t, r.Settled, 1)
	r, err := f.r.Apply(t.Context(), future(credit("c2", "2026-03-26", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Equal(t, "p2", r.Held[0].Payment)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	st := f.state("p2")
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Equal(t, txsync.Key(string(acct)+"-c1"), st.Booking)
	assert.Empty(t, st.HeldBooking)

	f.at("2026-03-25")
	assert.Empty(t, f.apply().Settled)
	assert.Equal(t, 2, settledEvents(f.col), "p1's, then p2's")
}

// TestFutureBookedCreditDueWhenAnotherArrives: on the day before its
// date a held credit is as any credit: it settles its payment in that
// read, and a credit of the payment booked in the same read matches no
// waiting payment (unmatched); the payment settles once.
func TestFutureBookedCreditDueWhenAnotherArrives(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-18")
	r = f.apply(credit("c2", "2026-03-18", nok("1250.00"), "KID "+futureKID))
	assert.Equal(t, []string{"p1=" + string(acct) + "-c1"}, keys(r.Settled))
	require.Len(t, r.Unmatched, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-c2"), r.Unmatched[0].Key)
	assert.Equal(t, 1, settledEvents(f.col))
}

// TestFutureBookedCreditStalledThenGenuine: a payment stalled while it
// holds a credit dated ahead settles, late, by a credit booked after its
// window; the held credit is reported unmatched.
func TestFutureBookedCreditStalledThenGenuine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	_, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-27", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	f.at("2026-03-18")
	require.Len(t, f.apply().Stalled, 1)

	f.at("2026-03-19")
	r := f.apply(credit("c2", "2026-03-19", nok("1250.00"), "KID "+futureKID))
	require.Len(t, r.Settled, 1)
	assert.True(t, r.Settled[0].Late)
	assert.True(t, r.Settled[0].WasStalled)
	require.Len(t, r.Unmatched, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-c1"), r.Unmatched[0].Key)
	f.at("2026-03-26")
	assert.True(t, f.apply().Empty())
	assert.Equal(t, 1, settledEvents(f.col))
}
