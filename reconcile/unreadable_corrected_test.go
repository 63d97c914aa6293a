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

// TestUnreadableCreditCorrectedUnmatchedReported: a booked entry reported
// in Round.Unreadable (its amount unreadable, absent or zero, or no date)
// that the bank then corrects, so that it is a credit that can be read
// and that matches no payment, is reported in Round.Unmatched as it now
// is, once (neither txsync's next read nor the correction's delta given
// again reports it again). Before, it was matched again quietly, as a credit reported
// unmatched before, and reported nowhere: the TPP, told of an entry it
// could not read, never learnt that it was a credit of no payment.
func TestUnreadableCreditCorrectedUnmatchedReported(t *testing.T) {
	t.Parallel()
	text := "Faktura 1001 mars"
	good := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: "t1", BookingDate: day("2026-03-16"),
		ValueDate: day("2026-03-16"), TransactionAmount: nok("100.00"), DebtorName: "Kari Nordmann",
		RemittanceInformationUnstructured: text}
	cases := []struct {
		name string
		bad  func(*accounts.Transaction)
	}{
		{"unreadable amount", func(e *accounts.Transaction) { e.TransactionAmount = unreadableAmount(t) }},
		{"zero amount", func(e *accounts.Transaction) { e.TransactionAmount = nok("0.00") }},
		{"no amount", func(e *accounts.Transaction) { e.TransactionAmount = money.Amount{} }},
		{"no date", func(e *accounts.Transaction) { e.BookingDate, e.ValueDate = date.Date{}, date.Date{} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			sy, err := txsync.New(f.st, txsync.WithClock(f.clk.Now))
			require.NoError(t, err)
			account := accounts.Account{ResourceID: "r1", IBAN: merchantIBAN, BBAN: merchantBBAN}
			linked, err := sy.Link(t.Context(), "merchant", []accounts.Account{account}, nil)
			require.NoError(t, err)
			key := linked.Accounts[0].Key
			require.NoError(t, f.r.Watch(t.Context(), key, account))
			f.pay("p1", nok("1000.00"), "", text)
			read := func(e accounts.Transaction) *reconcile.Round {
				t.Helper()
				d, err := sy.Apply(t.Context(), key, txsync.Read{Booked: []accounts.Transaction{e}})
				require.NoError(t, err)
				r, err := f.r.Apply(t.Context(), d)
				require.NoError(t, err)
				return r
			}

			bad := good
			c.bad(&bad)
			r := read(bad)
			require.Len(t, r.Unreadable, 1)
			assert.Empty(t, r.Unmatched)

			d, err := sy.Apply(t.Context(), key, txsync.Read{Booked: []accounts.Transaction{good}}) // the bank's correction
			require.NoError(t, err)
			require.Len(t, d.Changed, 1)
			r, err = f.r.Apply(t.Context(), d)
			require.NoError(t, err)
			require.Len(t, r.Unmatched, 1, "a credit of no payment, as it now is")
			assert.Equal(t, day("2026-03-16"), r.Unmatched[0].BookingDate)
			assert.True(t, nok("100.00").Equal(r.Unmatched[0].Amount))
			assert.Empty(t, r.Unreadable)
			assert.Equal(t, reconcile.Awaiting, f.state("p1").Settlement)

			assert.True(t, read(good).Empty(), "once")
			r, err = f.r.Apply(t.Context(), d) // the correction's delta given again
			require.NoError(t, err)
			assert.True(t, r.Empty(), "once: %+v", r)
		})
	}
}
