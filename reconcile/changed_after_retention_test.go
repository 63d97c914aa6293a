package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestCreditChangedAfterItsPaymentsRetention: a payment settled by a
// credit booked days after its creation is kept as long as that credit
// is (Retention after the credit's date, not only after the payment's
// creation): the bank's later change of the credit withdraws the
// settlement (Round.Withdrawn) and the credit, as it now is and settling
// nothing, is reported unmatched. Before, the payment left the state
// Retention after its creation while its credit was still seen, and the
// change was matched again quietly, as a credit that settled nothing:
// reported nowhere.
func TestCreditChangedAfterItsPaymentsRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	f.at("2026-03-24")
	c1 := credit("c1", "2026-03-24", nok("1250.00"), "KID "+futureKID)
	require.Len(t, f.apply(c1).Settled, 1)

	f.at("2026-07-15") // past Retention after p1's creation, not after c1's date
	f.apply()
	assert.Equal(t, reconcile.Settled, f.state("p1").Settlement, "kept while its credit is")

	fixed := credit("c1", "2026-03-24", nok("1200.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1, "the settlement reported is withdrawn")
	assert.Equal(t, "p1", r.Withdrawn[0].Payment)
	assert.Equal(t, []reconcile.Credit{{Key: c1.Key, BookingDate: day("2026-03-24"), Amount: nok("1200.00")}}, r.Unmatched)

	f.at("2026-07-23") // past Retention after c1's date: both go
	f.apply()
	_, err = f.r.Payment(t.Context(), "p1")
	assert.ErrorIs(t, err, reconcile.ErrNotTracked)
}
