package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
)

// TestRejectedAfterSettlingIsNotSettled: a payment the bank rejects (or
// that is cancelled) after a credit settled it never had its money
// arrive: the credit was another's (a twin's, a payer's of the same
// text and amount). It is not executed, and no longer settled, and the
// settlement announced is withdrawn. Before, a rejection left a settled
// payment settled: a payment whose money never left its debtor was
// reported settled.
func TestRejectedAfterSettlingIsNotSettled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	f.pay("p2", nok("49.00"), "", "Kaffe mars")
	c := credit("c", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Equal(t, []string{"p1=" + string(c.Key)}, keys(f.apply(c).Settled))

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	st := f.state("p1")
	assert.Equal(t, reconcile.NotExecuted, st.Settlement)
	assert.Empty(t, st.Booking, "a rejected payment holds no credit")
	evs := f.col.events()
	require.Len(t, evs, 3, "settled, withdrawn, and the twin settled by the freed credit")
	assert.Equal(t, events.PaymentSettlementWithdrawn{Payment: "p1", Booking: string(c.Key), BookingDate: day("2026-03-16"),
		Amount: nok("49.00"), Withdrawal: 1}, evs[1])

	// The same status again changes nothing.
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Len(t, f.col.events(), 3, "once")
	f.at("2026-03-31")
	f.apply()
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
}

// TestRejectedAfterSettlingReportsTheCredit: the credit that settled a
// payment the bank then rejects, taken by no twin, is a credit no payment
// matches: the next Apply reports it unmatched (Status returns no Round),
// once, as a credit read matching nothing is. Before, it was reported
// nowhere (without an Emitter not even by the withdrawal's event).
func TestRejectedAfterSettlingReportsTheCredit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	c := credit("c", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Len(t, f.apply(c).Settled, 1)

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	r := f.apply()
	assert.Equal(t, []reconcile.Credit{{Key: c.Key, BookingDate: day("2026-03-16"), Amount: nok("49.00")}}, r.Unmatched)
	assert.Empty(t, f.apply().Unmatched, "once")
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Empty(t, f.apply().Unmatched, "the same status again reports nothing again")
}
