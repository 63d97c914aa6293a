package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestWithdrawnAfterReturnDaysCreditReported pins what "When it cannot
// tell" says of a credit withdrawn more than ReturnDays after its
// booking: the payment, closed (its references let go), is Withdrawn,
// reported so, and settles no more; the credit, booked again, is reported
// unmatched, never dropped, once.
func TestWithdrawnAfterReturnDaysCreditReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), withdrawnKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+withdrawnKID)
	require.Len(t, f.apply(c1).Settled, 1)
	f.at("2026-04-20") // past ReturnDays: a read closes the payment
	f.apply()

	pending := c1
	tr := *c1.Transaction
	tr.Status = accounts.BookingPending
	pending.Transaction = &tr
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: pending, What: txsync.Unbooked}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)

	d := &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: c1, What: txsync.Booked}}}
	r, err = f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	assert.Empty(t, r.Settled, "its references were let go")
	assert.Equal(t, []reconcile.Credit{{Key: c1.Key, BookingDate: day("2026-03-16"), Amount: nok("1250.00")}}, r.Unmatched)
	assert.Equal(t, reconcile.Withdrawn, f.state("p1").Settlement)

	r, err = f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	assert.Empty(t, r.Unmatched, "once")
}
