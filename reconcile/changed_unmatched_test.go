package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/txsync"
)

// TestCorrectedCreditThatMatchedNothingSettles: a credit first booked with
// an amount that fits no payment (reported unmatched) and then corrected
// by the bank to the payment's amount is the payment's money: it settles
// the payment, once, also when the delta is given again. Before, a
// changed credit was matched again only when it had settled a payment,
// and the payment stalled although its money had arrived.
func TestCorrectedCreditThatMatchedNothingSettles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1000.00"), "", "Faktura 1001 mars")
	c1 := credit("c1", "2026-03-16", nok("100.00"), "Faktura 1001 mars")
	r := f.apply(c1)
	require.Empty(t, r.Settled)
	require.Len(t, r.Unmatched, 1)

	fixed := credit("c1", "2026-03-16", nok("1000.00"), "Faktura 1001 mars")
	d := &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}}
	r, err := f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	require.Len(t, r.Settled, 1, "the corrected credit settles the payment")
	st := f.state("p1")
	assert.Equal(t, "settled", st.Settlement.String())
	assert.Equal(t, c1.Key, st.Booking)

	r, err = f.r.Apply(t.Context(), d) // the same delta again
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
	assert.Len(t, f.col.events(), 1, "one payment.settled")
}

// TestChangedCreditOfAReturnedPaymentSettlesNoOther: the credit of a
// payment since returned, changed by the bank, is not matched again: it
// settled its payment, and one booking settles one payment.
func TestChangedCreditOfAReturnedPaymentSettlesNoOther(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	f.pay("p2", nok("49.00"), "", "Kaffe mars")
	c1 := credit("c1", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Len(t, f.apply(c1).Settled, 1)
	ret := credit("r1", "2026-03-17", nok("-49.00"), "Kaffe mars")
	f.at("2026-03-17")
	require.Len(t, f.apply(ret).Returned, 1)

	changed := credit("c1", "2026-03-16", nok("49.00"), "Kaffe mars Giro")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Text}}})
	require.NoError(t, err)
	assert.Empty(t, r.Settled)
	assert.Equal(t, "awaiting", f.state("p2").Settlement.String())
}
