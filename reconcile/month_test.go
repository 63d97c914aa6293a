package reconcile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/settlescript"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

// TestMonth plays the scripted month of the measure (settlescript.Month:
// 210 payments by KID, by text only, twins, late, with fees, returned,
// never credited, rejected, SEPA in euro credited in kroner, instant; 20
// credits from elsewhere, many of the payments' amounts; a re-consent):
// every payment ends as planned, no credit is taken for a payment it is
// not the credit of, every stall is flagged at the first read after its
// window and no other, every credit from elsewhere is reported, and each
// outcome's event is published once.
func TestMonth(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	script := settlescript.NewScript(settlescript.Month)
	require.GreaterOrEqual(t, len(script.Plans), 200)
	w, err := settlescript.NewWorld(ctx, st, settlescript.Month.Start)
	require.NoError(t, err)
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithStore(st), events.WithClock(w.Clock.Now))
	require.NoError(t, err)
	r, err := reconcile.New(st, reconcile.WithClock(w.Clock.Now), reconcile.WithEmitter(em))
	require.NoError(t, err)
	var log strings.Builder
	res, err := script.Play(ctx, w, r, nil)
	require.NoError(t, err)
	res.Print(&log)
	t.Log("\n" + log.String())

	fates := map[settlescript.Fate]int{}
	twins := 0
	for _, p := range script.Plans {
		fates[p.Fate]++
		if p.Twin {
			twins++
		}
	}
	for _, f := range []settlescript.Fate{settlescript.OnTime, settlescript.Late, settlescript.Fee, settlescript.Returned,
		settlescript.Never, settlescript.Rejected} {
		assert.Positive(t, fates[f], "the script has %s payments", f)
	}
	assert.Positive(t, twins)

	assert.Equal(t, res.Payments, res.Correct, "matched correctly")
	assert.Zero(t, res.FalseMatches)
	assert.Zero(t, res.Missed)
	assert.Equal(t, res.StalledExpected, res.Stalled)
	assert.Equal(t, res.Stalled, res.StalledOnTime)
	assert.Zero(t, res.FalseStalls)
	assert.Equal(t, res.ReturnedExpected, res.Returned)
	assert.Equal(t, res.Strangers, res.StrangersReported)
	assert.Zero(t, res.UnmatchedOwn)

	kinds := map[events.Kind]int{}
	ids := map[string]int{}
	for i, ev := range col.events() {
		kinds[ev.Kind()]++
		ids[col.ids[i]]++
	}
	for id, n := range ids {
		assert.Equal(t, 1, n, "event %s once", id)
	}
	assert.Equal(t, res.Settled, kinds[events.KindPaymentSettled])
	assert.Equal(t, res.Stalled, kinds[events.KindPaymentSettlementStalled])
	assert.Equal(t, res.Returned, kinds[events.KindPaymentReturned])
}
