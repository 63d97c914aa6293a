package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// firstReadOf is a first read of the merchant's account (the sync's
// state started over) listing e under a new key.
func firstReadOf(e txsync.Entry) *txsync.Delta {
	e.Key = txsync.Key(string(acct) + "-new-" + string(e.Key))
	return &txsync.Delta{Account: acct, First: true, Added: []txsync.Entry{e}}
}

// TestChangedCreditKnownInAFirstRead: a credit the bank changed (its
// text, its amount) that settled a payment is known by its facts as
// they are now: a first read that lists it under a new key settles no
// twin of that payment with it. Before, the state knew the credit by its
// facts when first read, the first read took it for a new credit, and
// one credit settled two payments.
func TestChangedCreditKnownInAFirstRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("49.00"), "", "Kaffe mars")
	f.pay("p2", nok("49.00"), "", "Kaffe mars")
	c1 := credit("c1", "2026-03-16", nok("49.00"), "Kaffe mars")
	require.Len(t, f.apply(c1).Settled, 1)
	changed := credit("c1", "2026-03-16", nok("49.00"), "Kaffe mars Giro")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Text}}})
	require.NoError(t, err)
	require.True(t, r.Empty(), "%+v", r)

	r, err = f.r.Apply(t.Context(), firstReadOf(changed))
	require.NoError(t, err)
	assert.Empty(t, r.Settled, "the changed credit settled p1 already")
	assert.Equal(t, 1, r.Repeated)
	assert.Equal(t, reconcile.Awaiting, f.state("p2").Settlement)
	assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
	assert.Len(t, f.col.events(), 1, "one payment.settled")
}

// TestCorrectedUnseenCreditKnownInAFirstRead: a credit whose first delta
// was lost (a crash between txsync's write and Apply) and that the bank
// then corrects settles its payment when the change is applied, and is
// seen from then on: a first read that lists it again under a new key
// settles no twin with it.
func TestCorrectedUnseenCreditKnownInAFirstRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1000.00"), "", "Faktura 1001 mars")
	f.pay("p2", nok("1000.00"), "", "Faktura 1001 mars")
	// c1, booked for 100.00, was never applied: its delta was lost.
	fixed := credit("c1", "2026-03-16", nok("1000.00"), "Faktura 1001 mars")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Equal(t, []string{"p1=" + string(fixed.Key)}, keys(r.Settled))

	r, err = f.r.Apply(t.Context(), firstReadOf(fixed))
	require.NoError(t, err)
	assert.Empty(t, r.Settled, "the corrected credit settled p1 already")
	assert.Equal(t, reconcile.Awaiting, f.state("p2").Settlement)
}
