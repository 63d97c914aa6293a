package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
)

// TestHeldCreditReversedInTheReadThatSettlesIt: a credit held (booked in
// the future) settles its payment in the read from the day before its
// date on; a reversal of it in that same read returns the payment. Before,
// the delta's debits were matched before the held credit settled its
// payment: the reversal found no settled payment and was dropped, and the
// payment stayed settled though its money went back.
func TestHeldCreditReversedInTheReadThatSettlesIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	ahead := credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(ahead))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-03-18")
	r = f.apply(credit("d1", "2026-03-19", nok("-1250.00"), "KID "+futureKID))
	assert.Equal(t, []string{"p1=" + string(ahead.Key)}, keys(r.Settled))
	require.Len(t, r.Returned, 1, "the reversal returns the payment its held credit settles")
	assert.Equal(t, reconcile.Returned, f.state("p1").Settlement)
	assert.Equal(t, 1, settledEvents(f.col))
	assert.Equal(t, 1, returnedEvents(f.col))
}
