package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// txsyncFixture is a fixture whose account txsync links and reads: its
// deltas carry txsync's changes, with the previous version of each.
type txsyncFixture struct {
	*fixture
	sy  *txsync.Syncer
	key txsync.AccountKey
}

func newTxsyncFixture(t *testing.T, start string) *txsyncFixture {
	t.Helper()
	f := newFixture(t, start)
	sy, err := txsync.New(f.st, txsync.WithClock(f.clk.Now))
	require.NoError(t, err)
	account := accounts.Account{ResourceID: "r1", IBAN: merchantIBAN, BBAN: merchantBBAN}
	linked, err := sy.Link(t.Context(), "merchant", []accounts.Account{account}, nil)
	require.NoError(t, err)
	key := linked.Accounts[0].Key
	require.NoError(t, f.r.Watch(t.Context(), key, account))
	return &txsyncFixture{fixture: f, sy: sy, key: key}
}

// read reads the account's booked entries with txsync and applies the
// delta; it returns the delta too.
func (f *txsyncFixture) read(booked ...accounts.Transaction) (*reconcile.Round, *txsync.Delta) {
	f.t.Helper()
	d, err := f.sy.Apply(f.t.Context(), f.key, txsync.Read{Booked: booked})
	require.NoError(f.t, err)
	r, err := f.r.Apply(f.t.Context(), d)
	require.NoError(f.t, err)
	return r, d
}

// TestUnreadableDebitCorrectedMatched: a booked entry reported in
// Round.Unreadable (its amount unreadable, absent or zero, or no date)
// that the bank then corrects into a debit that can be read is matched as
// a debit read for the first time is: a reversal of a settled payment
// returns it (Round.Returned, one payment.returned), or is held while
// txsync flags it booked in the future (Round.Held, returning the payment
// on its date), and a reversal of a credit held for a payment lets the
// credit go, reported in Round.Unmatched with the reversal in
// Round.UnmatchedReversals. Each once: txsync's next read and the
// correction's delta given again report nothing. Before, it was dropped
// as a plain debit changed: the payment stayed settled, and the reversal
// was reported nowhere.
func TestUnreadableDebitCorrectedMatched(t *testing.T) {
	t.Parallel()
	const kid = futureKID
	c1 := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: "c1", BookingDate: day("2026-03-16"),
		ValueDate: day("2026-03-16"), TransactionAmount: nok("1250.00"), DebtorName: "Kari Nordmann",
		RemittanceInformationUnstructured: "KID " + kid}
	d1 := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: "d1", BookingDate: day("2026-03-17"),
		ValueDate: day("2026-03-17"), TransactionAmount: nok("-1250.00"), CreditorName: "Kari Nordmann",
		RemittanceInformationUnstructured: "Retur KID " + kid}
	kinds := []struct {
		name string
		bad  func(*accounts.Transaction)
	}{
		{"unreadable amount", func(e *accounts.Transaction) { e.TransactionAmount = unreadableAmount(t) }},
		{"zero amount", func(e *accounts.Transaction) { e.TransactionAmount = nok("0.00") }},
		{"no amount", func(e *accounts.Transaction) { e.TransactionAmount = money.Amount{} }},
		{"no date", func(e *accounts.Transaction) { e.BookingDate, e.ValueDate = date.Date{}, date.Date{} }},
	}
	for _, k := range kinds {
		t.Run("returns/"+k.name, func(t *testing.T) {
			t.Parallel()
			f := newTxsyncFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), kid, "")
			r, _ := f.read(c1)
			require.Len(t, r.Settled, 1)

			f.at("2026-03-17")
			bad := d1
			k.bad(&bad)
			r, _ = f.read(c1, bad)
			require.Len(t, r.Unreadable, 1)
			assert.Empty(t, r.Returned)

			r, d := f.read(c1, d1) // the bank's correction
			require.Len(t, d.Changed, 1)
			require.Len(t, r.Returned, 1, "a reversal, as a debit read for the first time: %+v", r)
			assert.Equal(t, "p1", r.Returned[0].Payment)
			assert.Equal(t, d.Changed[0].Key, r.Returned[0].Reversal)
			assert.Equal(t, day("2026-03-17"), r.Returned[0].ReversalDate)
			assert.Empty(t, r.Unreadable)
			assert.Empty(t, r.UnmatchedReversals)
			assert.Equal(t, reconcile.Returned, f.state("p1").Settlement)
			assert.Equal(t, 1, returnedEvents(f.col))

			r, _ = f.read(c1, d1)
			assert.True(t, r.Empty(), "once: %+v", r)
			r, err := f.r.Apply(t.Context(), d) // the correction's delta given again
			require.NoError(t, err)
			assert.True(t, r.Empty(), "once: %+v", r)
			assert.Equal(t, 1, returnedEvents(f.col))
		})
	}

	t.Run("held in the future", func(t *testing.T) {
		t.Parallel()
		f := newTxsyncFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), kid, "")
		r, _ := f.read(c1)
		require.Len(t, r.Settled, 1)

		f.at("2026-03-17")
		late := d1
		late.BookingDate, late.ValueDate = day("2026-03-26"), day("2026-03-26")
		bad := late
		bad.TransactionAmount = unreadableAmount(t)
		r, _ = f.read(c1, bad)
		require.Len(t, r.Unreadable, 1)

		r, d := f.read(c1, late) // corrected, still booked in the future
		require.Len(t, d.Changed, 1)
		assert.Empty(t, r.Returned, "booked in the future: held")
		require.Len(t, r.Held, 1, "%+v", r)
		assert.Equal(t, d.Changed[0].Key, r.Held[0].HeldReversal)
		assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
		r, err := f.r.Apply(t.Context(), d) // given again: as any held reversal changed, held again
		require.NoError(t, err)
		assert.Empty(t, r.Returned)
		assert.Empty(t, r.Unmatched)
		assert.Empty(t, r.UnmatchedReversals)
		assert.Equal(t, d.Changed[0].Key, f.state("p1").HeldReversal)
		assert.Zero(t, returnedEvents(f.col))

		f.at("2026-03-25")
		r, _ = f.read(c1, late)
		require.Len(t, r.Returned, 1)
		assert.Equal(t, 1, returnedEvents(f.col))
	})

	t.Run("of a held credit", func(t *testing.T) {
		t.Parallel()
		f := newTxsyncFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), kid, "")
		ahead := c1
		ahead.BookingDate, ahead.ValueDate = day("2026-03-26"), day("2026-03-26")
		r, _ := f.read(ahead)
		require.Len(t, r.Held, 1)

		f.at("2026-03-17")
		rev := d1
		rev.BookingDate, rev.ValueDate = day("2026-03-27"), day("2026-03-27")
		bad := rev
		bad.TransactionAmount = money.Amount{}
		r, _ = f.read(ahead, bad)
		require.Len(t, r.Unreadable, 1)

		r, d := f.read(ahead, rev) // corrected: it reverses the held credit
		require.Len(t, d.Changed, 1)
		require.Len(t, r.Unmatched, 1, "the held credit, let go: %+v", r)
		assert.Equal(t, nok("1250.00").Value, r.Unmatched[0].Amount.Value)
		require.Len(t, r.UnmatchedReversals, 1)
		assert.Equal(t, d.Changed[0].Key, r.UnmatchedReversals[0].Key)
		st := f.state("p1")
		assert.Equal(t, reconcile.Awaiting, st.Settlement)
		assert.Empty(t, st.HeldBooking)

		r, err := f.r.Apply(t.Context(), d)
		require.NoError(t, err)
		assert.True(t, r.Empty(), "once: %+v", r)
		f.at("2026-03-26")
		r, _ = f.read(ahead, rev)
		assert.Empty(t, r.Settled, "the reversed credit settles nothing")
		assert.Empty(t, r.Unmatched)
		assert.Empty(t, r.UnmatchedReversals)
	})
}
