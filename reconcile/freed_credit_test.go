package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
)

// TestFreedCreditSettlesItsTwin: a credit that settled a payment the
// bank then rejects was another's money; a twin of the same text and
// amount, still waiting, is the payment it paid. Before, the twin
// waited for a credit already read (the bank never lists it as new
// again) and was reported stalled when its window ended though its
// money had arrived.
func TestFreedCreditSettlesItsTwin(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	f.pay("p2", nok("49.00"), "", "Kaffe mars")
	c := credit("c", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Equal(t, []string{"p1=" + string(c.Key)}, keys(f.apply(c).Settled))

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	assert.Equal(t, reconcile.NotExecuted, f.state("p1").Settlement)
	st := f.state("p2")
	assert.Equal(t, reconcile.Settled, st.Settlement, "the freed credit is the twin's")
	assert.Equal(t, c.Key, st.Booking)
	assert.Equal(t, reconcile.ByRemittance, st.By)
	evs := f.col.events()
	require.Len(t, evs, 3)
	assert.Equal(t, events.PaymentSettled{Payment: "p2", Booking: string(c.Key), BookingDate: day("2026-03-16"),
		Amount: nok("49.00"), Instructed: nok("49.00"), MatchedBy: "remittance"}, evs[2])

	// Its window passes: settled, not stalled.
	f.at("2026-03-31")
	r := f.apply()
	assert.Empty(t, r.Stalled)
	assert.Equal(t, reconcile.Settled, f.state("p2").Settlement)
	assert.Len(t, f.col.events(), 3)
}

// TestFreedCreditByKIDSettlesItsTwin: the same for a credit matched by
// KID: a waiting payment of the same KID takes it, of another amount as
// a KID match does.
func TestFreedCreditByKIDSettlesItsTwin(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), "1234567890128", "")
	f.pay("p2", nok("1300.00"), "1234567890128", "")
	c := credit("c", "2026-03-16", nok("1250.00"), "KID 1234567890128")
	require.Equal(t, []string{"p1=" + string(c.Key)}, keys(f.apply(c).Settled))

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusCANC))
	st := f.state("p2")
	assert.Equal(t, reconcile.SettledOtherAmount, st.Settlement)
	assert.Equal(t, reconcile.ByKID, st.By)
	assert.Equal(t, c.Key, st.Booking)
}

// TestFreedCreditOnlyForATwin: a waiting payment of other facts (another
// text, another amount for a text match, created after the credit was
// booked) does not take the freed credit: its texts are not kept, and
// only a twin is known to match it.
func TestFreedCreditOnlyForATwin(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	f.pay("other-text", nok("49.00"), "", "Kaffe april")
	f.pay("other-amount", nok("50.00"), "", "Kaffe mars")
	c := credit("c", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Equal(t, []string{"p1=" + string(c.Key)}, keys(f.apply(c).Settled))
	f.at("2026-03-17")
	f.pay("later", nok("49.00"), "", "Kaffe mars")

	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	for _, id := range []string{"other-text", "other-amount", "later"} {
		assert.Equal(t, reconcile.Awaiting, f.state(id).Settlement, id)
	}
	assert.Len(t, f.col.events(), 2, "settled and withdrawn, nothing more")
}
