package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestWithdrawnCreditsChangedReversalReportedAsItNowIs: one delta
// withdraws the credit of a settled payment (the bank no longer lists it,
// or changes its amount) and changes the reversal held for that payment
// (its date, its amount). The reversal, let go with its credit that now
// settles no payment, is reported in Round.UnmatchedReversals once, as
// the bank now books it, whatever the order of the delta's changes; one
// changed so that it can no longer be read is reported in
// Round.Unreadable instead. Before, when the credit's withdrawal came
// first, the reversal was reported with its old date and amount.
func TestWithdrawnCreditsChangedReversalReportedAsItNowIs(t *testing.T) {
	t.Parallel()
	fixedC1 := credit("c1", "2026-03-16", nok("1200.00"), "KID "+futureKID)
	cases := []struct {
		name     string
		d1       txsync.Entry
		what     txsync.What
		gone     bool // c1 no longer listed; else changed to fixedC1
		d1First  bool // d1's change listed before c1's
		wantDate string
	}{
		{"credit gone, reversal redated", credit("d1", "2026-03-27", nok("-1250.00"), "KID "+futureKID), txsync.Dates, true, false, "2026-03-27"},
		{"credit gone, reversal of another amount", credit("d1", "2026-03-26", nok("-1240.00"), "KID "+futureKID), txsync.Amount, true, false, "2026-03-26"},
		{"credit changed first, reversal redated", credit("d1", "2026-03-27", nok("-1250.00"), "KID "+futureKID), txsync.Dates, false, false, "2026-03-27"},
		{"reversal changed first, credit changed", credit("d1", "2026-03-27", nok("-1250.00"), "KID "+futureKID), txsync.Dates, false, true, "2026-03-27"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, _ := heldReversalOfC1(t)
			d := &txsync.Delta{Account: acct}
			rc := txsync.Change{Entry: c.d1, What: c.what}
			if c.gone {
				d.Removed = []txsync.Removal{{Key: fixedC1.Key, Reason: txsync.BookedGone}}
				d.Changed = []txsync.Change{rc}
			} else {
				cc := txsync.Change{Entry: fixedC1, What: txsync.Amount}
				d.Changed = []txsync.Change{cc, rc}
				if c.d1First {
					d.Changed = []txsync.Change{rc, cc}
				}
			}
			r, err := f.r.Apply(t.Context(), d)
			require.NoError(t, err)
			require.Len(t, r.Withdrawn, 1)
			assert.Equal(t, []reconcile.Credit{{Key: c.d1.Key, BookingDate: day(c.wantDate), Amount: c.d1.Transaction.TransactionAmount}},
				r.UnmatchedReversals, "reported as the bank now books it")
			assert.Empty(t, r.Returned)

			r, err = f.r.Apply(t.Context(), d) // the same delta again
			require.NoError(t, err)
			assert.Empty(t, r.UnmatchedReversals, "once")
		})
	}
	t.Run("reversal changed unreadable", func(t *testing.T) {
		t.Parallel()
		f, _ := heldReversalOfC1(t)
		d1 := credit("d1", "2026-03-26", unreadableAmount(t), "KID "+futureKID)
		d := &txsync.Delta{Account: acct, Removed: []txsync.Removal{{Key: fixedC1.Key, Reason: txsync.BookedGone}},
			Changed: []txsync.Change{{Entry: d1, What: txsync.Amount}}}
		r, err := f.r.Apply(t.Context(), d)
		require.NoError(t, err)
		require.Len(t, r.Withdrawn, 1)
		require.Len(t, r.Unreadable, 1)
		assert.Equal(t, d1.Key, r.Unreadable[0].Key)
		assert.Empty(t, r.UnmatchedReversals, "reported as it now is: unreadable")
	})
}
