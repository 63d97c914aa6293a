package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// withdrawnKID is the KID of the payments of these tests.
const withdrawnKID = "1234567890128"

// removed is a delta of the merchant's account in which the bank no
// longer lists the booked entry e.
func removed(e txsync.Entry) *txsync.Delta {
	return &txsync.Delta{Account: acct, Removed: []txsync.Removal{{Key: e.Key, Reason: txsync.BookedGone,
		Previous: txsync.Version{Status: accounts.BookingBooked, TransactionID: e.Transaction.TransactionID,
			BookingDate: e.Transaction.BookingDate, Amount: e.Transaction.TransactionAmount.Text(), Currency: "NOK"}}}}
}

// TestRemovedCreditUnsettles: a payment settled by a booked credit is no
// longer settled once the bank withdraws that credit (it shows in
// Delta.Removed): the money is not known to have arrived. The credit the
// bank books instead settles it again.
func TestRemovedCreditUnsettles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	require.Len(t, f.apply(c1).Settled, 1)

	_, err := f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	st := f.state("p1")
	assert.NotContains(t, []string{"settled", "settled-other-amount"}, st.Settlement.String(),
		"a withdrawn credit settles nothing")
	assert.Empty(t, st.Booking)

	_, err = f.r.Apply(t.Context(), removed(c1)) // the same delta again
	require.NoError(t, err)

	c2 := credit("c2", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	r := f.apply(c2)
	require.Len(t, r.Settled, 1, "the corrected credit settles the payment again")
	assert.Equal(t, c2.Key, f.state("p1").Booking)
}

// TestRemovedBeforeAdded: a delta given again after a later one (its
// Apply failed, and it was retried after the next read's) does not
// settle a payment by a credit the later delta said the bank withdrew.
func TestRemovedBeforeAdded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	_, err := f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	r := f.apply(c1)
	assert.Empty(t, r.Settled)
	assert.Equal(t, "awaiting", f.state("p1").Settlement.String())
}

// TestUnbookedCreditUnsettles: a credit that comes back as pending
// (txsync's Unbooked) settles nothing until it is booked again, under
// the same key.
func TestUnbookedCreditUnsettles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	require.Len(t, f.apply(c1).Settled, 1)

	pending := c1
	tx := *c1.Transaction
	tx.Status = accounts.BookingPending
	pending.Transaction = &tx
	_, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: pending, What: txsync.Unbooked}}})
	require.NoError(t, err)
	st := f.state("p1")
	assert.NotContains(t, []string{"settled", "settled-other-amount"}, st.Settlement.String())
	assert.Empty(t, st.Booking)

	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: c1, What: txsync.Booked}}})
	require.NoError(t, err)
	require.Len(t, r.Settled, 1, "booked again, under its key")
	assert.Equal(t, c1.Key, f.state("p1").Booking)
}

// TestChangedAmountOfCredit: the bank corrects the amount of the credit
// that settled a payment: the payment's settlement shows the amount now
// booked, not the one first read.
func TestChangedAmountOfCredit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	require.Len(t, f.apply(c1).Settled, 1)

	fixed := credit("c1", "2026-03-16", nok("125.00"), "KID "+withdrawnKID)
	_, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
	require.NoError(t, err)
	st := f.state("p1")
	assert.Equal(t, "settled-other-amount", st.Settlement.String())
	assert.True(t, nok("125.00").Equal(st.Booked), "booked %s", st.Booked)

	// A change of the text alone that keeps the evidence changes nothing.
	same := credit("c1", "2026-03-16", nok("125.00"), "KID "+withdrawnKID+" Giro")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: same, What: txsync.Text}}})
	require.NoError(t, err)
	assert.True(t, r.Empty())
	assert.Equal(t, c1.Key, f.state("p1").Booking)
}

// TestWithdrawnStateAndEvents: a withdrawn credit makes its payment
// Withdrawn, with the credit's key, date and amount, in the Round and
// with a payment.settlement_withdrawn event, once; the credit booked
// instead settles it again with an event of its own (another ID).
func TestWithdrawnStateAndEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	f.apply(c1)

	r, err := f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	got := r.Withdrawn[0]
	assert.Equal(t, reconcile.Withdrawn, got.Settlement)
	assert.Equal(t, 1, got.Withdrawals)
	assert.Equal(t, c1.Key, got.WithdrawnBooking)
	assert.Equal(t, day("2026-03-16"), got.WithdrawnBookingDate)
	assert.True(t, nok("1250.00").Equal(got.WithdrawnAmount))
	assert.Empty(t, got.Booking)
	assert.Equal(t, got, f.state("p1"))

	again, err := f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	assert.True(t, again.Empty(), "the same delta again withdraws nothing more")

	f.at("2026-03-17")
	c2 := credit("c2", "2026-03-17", nok("1250.00"), "KID "+withdrawnKID)
	r = f.apply(c2)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, reconcile.Settled, r.Settled[0].Settlement)
	assert.Equal(t, 1, r.Settled[0].Withdrawals, "the withdrawal stays on record")

	evs := f.col.events()
	require.Len(t, evs, 3)
	assert.Equal(t, events.PaymentSettlementWithdrawn{Payment: "p1", Booking: string(c1.Key), BookingDate: day("2026-03-16"),
		Amount: nok("1250.00"), Withdrawal: 1}, evs[1])
	assert.Equal(t, events.PaymentSettled{Payment: "p1", Booking: string(c2.Key), BookingDate: day("2026-03-17"),
		Amount: nok("1250.00"), Instructed: nok("1250.00"), MatchedBy: "kid", Withdrawals: 1}, evs[2])
	f.col.mu.Lock()
	ids := append([]string(nil), f.col.ids...)
	f.col.mu.Unlock()
	assert.Len(t, ids, 3)
	assert.NotEqual(t, ids[0], ids[2], "a settlement after a withdrawal is a fact of its own")
	assert.NotEqual(t, ids[0], ids[1])
}

// TestWithdrawnAfterWindowStalls: a payment whose credit is withdrawn
// after its window is reported stalled too (it is not credited within
// its window), and stays Withdrawn.
func TestWithdrawnAfterWindowStalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-17", nok("1250.00"), "KID "+withdrawnKID)
	f.at("2026-03-17")
	f.apply(c1)
	f.at("2026-03-20")
	r, err := f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	require.Len(t, r.Stalled, 1)
	st := f.state("p1")
	assert.Equal(t, reconcile.Withdrawn, st.Settlement)
	assert.True(t, st.WasStalled)
	evs := f.col.events()
	require.Len(t, evs, 3)
	assert.IsType(t, events.PaymentSettlementStalled{}, evs[1], "stalled, then withdrawn: the order of eventsOf")
	assert.IsType(t, events.PaymentSettlementWithdrawn{}, evs[2])
}

// TestWithdrawnOnlyItsOwnPayment: a withdrawn credit that settled
// nothing (reported unmatched) changes no payment; one that settled a
// payment changes that payment alone.
func TestWithdrawnOnlyItsOwnPayment(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("a", nok("100.00"), "11112222", "")
	f.pay("b", nok("100.00"), "33334444", "")
	ca, cb := credit("ca", "2026-03-16", nok("100.00"), "11112222"), credit("cb", "2026-03-16", nok("100.00"), "33334444")
	x := credit("x", "2026-03-16", nok("100.00"), "Gave")
	r := f.apply(ca, cb, x)
	require.Len(t, r.Settled, 2)
	require.Len(t, r.Unmatched, 1)
	r, err := f.r.Apply(t.Context(), removed(x))
	require.NoError(t, err)
	assert.True(t, r.Empty())
	r, err = f.r.Apply(t.Context(), removed(cb))
	require.NoError(t, err)
	assert.Equal(t, []string{"b="}, keys(r.Withdrawn))
	assert.Equal(t, reconcile.Settled, f.state("a").Settlement)
	assert.Equal(t, reconcile.Withdrawn, f.state("b").Settlement)
}

// TestOneBookingOncePerDelta: a delta that lists one booking twice
// (added, and changed to booked, as a caller that merges two reads may
// give it) settles one payment with it, not two: two payments of the
// same KID and amount (the invoice paid twice) get one credit.
func TestOneBookingOncePerDelta(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("first", nok("1250.00"), withdrawnKID, "")
	f.pay("twice", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: []txsync.Entry{c1},
		Changed: []txsync.Change{{Entry: c1, What: txsync.Booked}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"first=" + string(c1.Key)}, keys(r.Settled))
	assert.Equal(t, reconcile.Awaiting, f.state("twice").Settlement)
}

// TestWithdrawnAfterFirstRead: after the sync's state started over (a
// first read, every entry under a new key), the credit that settled a
// payment is known under its new key: the bank's withdrawal of it, under
// that key, withdraws the settlement.
func TestWithdrawnAfterFirstRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	f.apply(c1)
	rekeyed := c1
	rekeyed.Key = txsync.Key(string(acct) + "-new1")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, First: true, Added: []txsync.Entry{rekeyed}})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Repeated)
	assert.Empty(t, r.Settled)
	assert.Equal(t, rekeyed.Key, f.state("p1").Booking, "known under its new key")

	_, err = f.r.Apply(t.Context(), removed(rekeyed))
	require.NoError(t, err)
	st := f.state("p1")
	assert.NotContains(t, []string{"settled", "settled-other-amount"}, st.Settlement.String())
}
