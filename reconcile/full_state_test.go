package reconcile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// fullAfterClosing is a fixture whose payment p1, settled by credit c1 on
// 2026-03-16, is closed (settled more than ReturnDays ago, on
// 2026-04-20), c1 still seen, and whose state is then filled with open
// payments to less than one of them more than room bytes below its
// bound. It returns c1.
func fullAfterClosing(t *testing.T, room int, more func(f *fixture)) (*fixture, txsync.Entry) {
	t.Helper()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	c1 := credit("c1", "2026-03-16", nok("1250.00"), "KID "+futureKID)
	require.Len(t, f.apply(c1).Settled, 1)
	f.at("2026-04-20")
	f.apply()
	if more != nil {
		more(f)
	}
	k := "reconcile/account/" + string(acct)
	b, err := f.st.Get(t.Context(), k)
	require.NoError(t, err)
	b, err = reconcile.Fill(b, f.clk.Now(), room)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), reconcile.MaxStateBytes)
	require.NoError(t, f.st.Put(t.Context(), k, b, reconcile.StateTTL))
	return f, c1
}

// TestFullStateKeepsSettledPayments: an account's state at its bound
// never lets go a closed payment whose credit is still seen to make room:
// a call that finds no room otherwise fails with ErrFull, storing
// nothing, and the bank's later change of the credit still withdraws the
// settlement it made (Round.Withdrawn). Before, fit let the oldest closed
// payment go: Track and Apply succeeded, and the change of its credit was
// matched again quietly, as a credit that settled nothing, reported
// nowhere.
func TestFullStateKeepsSettledPayments(t *testing.T) {
	t.Parallel()
	changed := func(t *testing.T, f *fixture, c1 txsync.Entry) {
		t.Helper()
		fixed := credit("c1", "2026-03-16", nok("1200.00"), "KID "+futureKID)
		r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
		require.NoError(t, err)
		require.Len(t, r.Withdrawn, 1, "the settlement reported is withdrawn: %+v", r)
		assert.Equal(t, "p1", r.Withdrawn[0].Payment)
		assert.Equal(t, c1.Key, r.Withdrawn[0].WithdrawnBooking)
	}

	t.Run("track", func(t *testing.T) {
		t.Parallel()
		f, c1 := fullAfterClosing(t, 100, nil)
		long := strings.Repeat("faktura for varer levert i april ", 4)
		_, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p2", Created: f.clk.Now(),
			Product: payments.ProductNorwegianDomestic, Amount: nok("10.00"), CreditorBBAN: merchantBBAN, Remittance: long})
		assert.ErrorIs(t, err, reconcile.ErrFull)
		if err != nil {
			assert.NotContains(t, err.Error(), merchantBBAN)
			assert.NotContains(t, err.Error(), "faktura")
		}
		_, err = f.r.Payment(t.Context(), "p2")
		assert.ErrorIs(t, err, reconcile.ErrNotTracked, "nothing stored")
		p1, err := f.r.Payment(t.Context(), "p1")
		assert.NoError(t, err, "kept while its credit is seen")
		assert.Equal(t, reconcile.Settled, p1.Settlement)
		r := f.apply(c1) // given again: still seen, as its payment holds it
		assert.Equal(t, 1, r.Repeated)
		assert.True(t, r.Empty(), "%+v", r)
		changed(t, f, c1)
	})

	t.Run("apply", func(t *testing.T) {
		t.Parallel()
		f, c1 := fullAfterClosing(t, 0, func(f *fixture) { f.pay("p2", nok("300.00"), "5550001112", "") })
		c2 := credit("c2", "2026-04-20", nok("300.00"), "KID 5550001112")
		_, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: []txsync.Entry{c2}})
		assert.ErrorIs(t, err, reconcile.ErrFull)
		if err != nil {
			assert.NotContains(t, err.Error(), "5550001112")
		}
		assert.Equal(t, reconcile.Awaiting, f.state("p2").Settlement, "nothing stored")
		p1, err := f.r.Payment(t.Context(), "p1")
		assert.NoError(t, err, "kept while its credit is seen")
		assert.Equal(t, reconcile.Settled, p1.Settlement)
		changed(t, f, c1)
	})
}
