package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// futureKID is the KID of the payments of these tests.
const futureKID = "1234567890128"

// future is a delta of the merchant's account adding e, which txsync
// flags as booked in the future.
func future(e txsync.Entry) *txsync.Delta {
	return &txsync.Delta{Account: acct, Added: []txsync.Entry{e},
		Anomalies: []txsync.Anomaly{{Key: e.Key, Kind: txsync.FutureBooked, Date: e.Transaction.BookingDate}}}
}

// settledEvents counts the payment.settled events of a collector.
func settledEvents(c *collector) int {
	n := 0
	for _, ev := range c.events() {
		if _, ok := ev.(events.PaymentSettled); ok {
			n++
		}
	}
	return n
}

// TestFutureBookedCreditSettlesOnItsDate closes the loop through txsync:
// a credit the bank books dated three days ahead (a bank clock or data
// error) comes with txsync's FutureBooked anomaly. It settles nothing
// while it is dated ahead: the payment waits, with the credit held, and
// no payment.settled goes out. txsync reports the entry once, so the
// reconciler keeps it: on the first read from the day before its date on
// (when txsync would no longer flag it), it settles the payment, late,
// once. Before, the flagged credit settled the payment at once.
func TestFutureBookedCreditSettlesOnItsDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16") // a Monday
	sy, err := txsync.New(f.st, txsync.WithClock(f.clk.Now))
	require.NoError(t, err)
	account := accounts.Account{ResourceID: "r1", IBAN: merchantIBAN, BBAN: merchantBBAN}
	linked, err := sy.Link(t.Context(), "merchant", []accounts.Account{account}, nil)
	require.NoError(t, err)
	key := linked.Accounts[0].Key
	require.NoError(t, f.r.Watch(t.Context(), key, account))
	_, err = f.r.Track(t.Context(), reconcile.Payment{RequestID: "p1", Created: f.clk.Now(),
		Product: payments.ProductNorwegianDomestic, Amount: nok("1250.00"), CreditorBBAN: merchantBBAN, KID: futureKID,
		Status: payments.StatusACTC, StatusAt: f.clk.Now()})
	require.NoError(t, err)

	bank := []accounts.Transaction{{Status: accounts.BookingBooked, TransactionID: "t1", BookingDate: day("2026-03-19"),
		ValueDate: day("2026-03-19"), TransactionAmount: nok("1250.00"), DebtorName: "Kari Nordmann",
		RemittanceInformationUnstructured: "KID " + futureKID}}
	read := func() *reconcile.Round {
		t.Helper()
		d, err := sy.Apply(t.Context(), key, txsync.Read{Booked: bank})
		require.NoError(t, err)
		r, err := f.r.Apply(t.Context(), d)
		require.NoError(t, err)
		return r
	}

	r := read()
	require.Len(t, r.Held, 1, "held: its date is ahead")
	assert.Empty(t, r.Settled, "a credit booked in the future settles nothing")
	assert.Empty(t, r.Unmatched, "it is the payment's: not unmatched")
	st, err := f.r.Payment(t.Context(), "p1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Empty(t, st.Booking)
	assert.NotEmpty(t, st.HeldBooking)
	assert.Equal(t, day("2026-03-19"), st.HeldBookingDate)

	f.at("2026-03-17") // still two days ahead; the window's last day
	r = read()
	assert.Empty(t, r.Settled)
	assert.Zero(t, settledEvents(f.col))

	f.at("2026-03-18") // a day ahead: txsync would no longer flag it
	r = read()
	require.Len(t, r.Settled, 1, "the held credit settles the payment once no longer dated ahead")
	assert.Equal(t, st.HeldBooking, r.Settled[0].Booking)
	assert.True(t, r.Settled[0].Late, "dated after the window")
	assert.Empty(t, r.Stalled)
	st, err = f.r.Payment(t.Context(), "p1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Settled, st.Settlement)
	assert.Empty(t, st.HeldBooking)

	f.at("2026-03-19")
	assert.True(t, read().Empty())
	assert.Equal(t, 1, settledEvents(f.col), "one payment.settled")
}

// TestFutureBookedCreditAppliedLate: a delta whose flagged credit is no
// longer dated ahead when it is applied (the read was applied again the
// next days) settles the payment at once.
func TestFutureBookedCreditAppliedLate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.at("2026-03-18")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Settled, 1)
	assert.Empty(t, r.Held)
}

// TestFutureBookedCreditDateCorrected: the bank corrects the date of a
// held credit (txsync reports the change of its dates, not flagged): it
// settles the payment at once, under its new date.
func TestFutureBookedCreditDateCorrected(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	c1 := credit("c1", "2026-03-26", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(c1))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Empty(t, r.Settled)

	f.at("2026-03-17")
	fixed := credit("c1", "2026-03-17", nok("1250.00"), "KID "+futureKID)
	r, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Dates}}})
	require.NoError(t, err)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, day("2026-03-17"), r.Settled[0].BookingDate)
	assert.False(t, r.Settled[0].Late)
	assert.Empty(t, r.Withdrawn, "a held credit settled nothing: nothing to withdraw")

	// Changed again to a date ahead, flagged: the settlement is withdrawn
	// and the credit held.
	later := credit("c1", "2026-03-27", nok("1250.00"), "KID "+futureKID)
	r, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: later, What: txsync.Dates}},
		Anomalies: []txsync.Anomaly{{Key: later.Key, Kind: txsync.FutureBooked, Date: day("2026-03-27")}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	assert.Empty(t, r.Settled)
	require.Len(t, r.Held, 1)
	assert.Equal(t, reconcile.Withdrawn, f.state("p1").Settlement)
}

// TestFutureBookedCreditRemoved: a held credit the bank no longer lists
// leaves the payment waiting, with no withdrawal (it never settled it);
// the credit the bank books instead settles it.
func TestFutureBookedCreditRemoved(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	c1 := credit("c1", "2026-03-20", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(c1))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	r, err = f.r.Apply(t.Context(), removed(c1))
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
	st := f.state("p1")
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Empty(t, st.HeldBooking)

	f.at("2026-03-20") // the held credit's date: gone, it settles nothing
	r = f.apply()
	assert.Empty(t, r.Settled)

	r = f.apply(credit("c2", "2026-03-20", nok("1250.00"), "KID "+futureKID))
	require.Len(t, r.Settled, 1)
	assert.Equal(t, txsync.Key(string(acct)+"-c2"), r.Settled[0].Booking)
	for _, ev := range f.col.events() {
		_, withdrawn := ev.(events.PaymentSettlementWithdrawn)
		assert.False(t, withdrawn, "no withdrawal of a credit that never settled")
	}
}

// TestFutureBookedCreditOfARejectedPayment: a payment rejected while a
// credit is held for it is not executed; its twin (the same KID) takes
// the held credit, held too until its date.
func TestFutureBookedCreditOfARejectedPayment(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.pay("p2", nok("1250.00"), futureKID, "")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)
	require.Equal(t, "p1", r.Held[0].Payment)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
	st := f.state("p2")
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Equal(t, txsync.Key(string(acct)+"-c1"), st.HeldBooking)

	f.at("2026-03-18")
	r = f.apply()
	require.Len(t, r.Settled, 1)
	assert.Equal(t, "p2", r.Settled[0].Payment)
	assert.Equal(t, 1, settledEvents(f.col))
}

// TestFutureBookedCreditStalls: a payment whose only credit is held past
// its window stalls, as a payment whose credit is late does, and settles
// late on the credit's date.
func TestFutureBookedCreditStalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	r, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-25", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-18") // the window ended on the 17th
	r = f.apply()
	require.Len(t, r.Stalled, 1)
	assert.Equal(t, reconcile.Stalled, f.state("p1").Settlement)

	f.at("2026-03-24")
	r = f.apply()
	require.Len(t, r.Settled, 1)
	assert.True(t, r.Settled[0].Late)
	assert.True(t, r.Settled[0].WasStalled)
}

// TestFutureBookedStateReadBack: a state holding a credit is written in
// the second form (an earlier release refuses it, never reads the held
// payment as settled) and reads back the same.
func TestFutureBookedStateReadBack(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	_, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	b, err := f.st.Get(t.Context(), "reconcile/account/"+string(acct))
	require.NoError(t, err)
	assert.Equal(t, byte(2), b[0], "the second form")
	again, err := reconcile.Reencode(b)
	require.NoError(t, err)
	assert.Equal(t, b, again)

	other := f.reconciler() // another replica reads it
	st, err := other.Payment(t.Context(), "p1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Equal(t, day("2026-03-19"), st.HeldBookingDate)
}
