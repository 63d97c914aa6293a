package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestHeldReversalChangedToReverseNothingReported: a reversal held (booked
// in the future) for a settled payment, that the bank changes so that it
// reverses no payment (another amount, or a text without the payment's
// reference), is let go and reported in Round.UnmatchedReversals as it now
// is, once; the payment stays settled (also when its date is now one no
// payment of the account can have). Before, it was matched again as a
// plain debit, which matches nothing and is reported nowhere: the TPP,
// told of a reversal held, never learnt what became of it.
func TestHeldReversalChangedToReverseNothingReported(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		what   txsync.What
		date   string
		amount money.Amount
		text   string
	}{
		{"another amount", txsync.Amount, "2026-03-26", nok("-1000.00"), "KID " + futureKID},
		{"no reference", txsync.Text, "2026-03-26", nok("-1250.00"), "Tilbakeføring"},
		{"dated before its credit", txsync.Dates, "2026-03-13", nok("-1250.00"), "KID " + futureKID},
		{"dated before the account was watched", txsync.Dates, "2026-03-02", nok("-1250.00"), "KID " + futureKID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, _ := heldReversalOfC1(t)
			changed := credit("d1", c.date, c.amount, c.text)
			d := &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: c.what}}}
			r, err := f.r.Apply(t.Context(), d)
			require.NoError(t, err)
			assert.Equal(t, []reconcile.Credit{{Key: changed.Key, BookingDate: day(c.date), Amount: c.amount}}, r.UnmatchedReversals,
				"a held reversal that reverses nothing now is reported, never dropped")
			assert.Empty(t, r.Returned)
			assert.Empty(t, r.Unmatched)
			st := f.state("p1")
			assert.Equal(t, reconcile.Settled, st.Settlement)
			assert.Empty(t, st.HeldReversal)

			r, err = f.r.Apply(t.Context(), d) // the same delta again
			require.NoError(t, err)
			assert.Empty(t, r.UnmatchedReversals, "reported once")

			f.at("2026-03-26")
			r = f.apply()
			assert.Empty(t, r.Returned, "it returns nothing on its date")
			assert.Empty(t, r.UnmatchedReversals)
		})
	}
}

// TestHeldReversalChangedToACreditReported: a held reversal the bank
// changes into a credit is matched as one, and reported unmatched when
// it matches nothing, also dated before the account was watched (where a
// credit read anew is no payment's, and not reported): it was reported
// held, and must not vanish.
func TestHeldReversalChangedToACreditReported(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"2026-03-26", "2026-03-02"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			f, _ := heldReversalOfC1(t)
			changed := credit("d1", d, nok("1250.00"), "Tilbakeføring")
			r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount | txsync.Dates}}})
			require.NoError(t, err)
			assert.Equal(t, []reconcile.Credit{{Key: changed.Key, BookingDate: day(d), Amount: nok("1250.00")}}, r.Unmatched)
			assert.Empty(t, r.UnmatchedReversals)
			assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
		})
	}
}

// TestHeldReversalChangedStillReversingReturns: a held reversal the bank
// changes (its date, no longer ahead) that still reverses the payment's
// credit returns the payment, and is not reported as reversing nothing.
func TestHeldReversalChangedStillReversingReturns(t *testing.T) {
	t.Parallel()
	f, _ := heldReversalOfC1(t)
	changed := credit("d1", "2026-03-18", nok("-1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Dates}}})
	require.NoError(t, err)
	require.Len(t, r.Returned, 1)
	assert.Empty(t, r.UnmatchedReversals)
	assert.Equal(t, reconcile.Returned, f.state("p1").Settlement)
}
