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

// TestFullStateLetsGoASettledPaymentLoudly: an account's state at its
// bound, with nothing else to let go, lets go its oldest closed payment
// holding a credit together with that credit's booking seen, so that the
// call succeeds and a later change the bank makes of the credit (or the
// credit given again) is reported as a credit read for the first time,
// in Round.Unmatched, never matched again quietly. Before, fit let the
// payment go first and kept its credit's booking seen: the change was
// matched again as a credit that settled nothing, reported nowhere.
func TestFullStateLetsGoASettledPaymentLoudly(t *testing.T) {
	t.Parallel()
	reported := func(t *testing.T, f *fixture, c1 txsync.Entry) {
		t.Helper()
		_, err := f.r.Payment(t.Context(), "p1")
		assert.ErrorIs(t, err, reconcile.ErrNotTracked, "the oldest closed payment was let go")
		fixed := credit("c1", "2026-03-16", nok("1200.00"), "KID "+futureKID)
		r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: fixed, What: txsync.Amount}}})
		require.NoError(t, err)
		require.Len(t, r.Unmatched, 1, "the changed credit is reported: %+v", r)
		assert.Equal(t, c1.Key, r.Unmatched[0].Key)
	}

	t.Run("track", func(t *testing.T) {
		t.Parallel()
		f, c1 := fullAfterClosing(t, 100, nil)
		long := strings.Repeat("faktura for varer levert i april ", 4)
		_, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p2", Created: f.clk.Now(),
			Product: payments.ProductNorwegianDomestic, Amount: nok("10.00"), CreditorBBAN: merchantBBAN, Remittance: long})
		require.NoError(t, err)
		_, err = f.r.Payment(t.Context(), "p2")
		assert.NoError(t, err, "tracked")
		reported(t, f, c1)
	})

	t.Run("apply", func(t *testing.T) {
		t.Parallel()
		f, c1 := fullAfterClosing(t, 0, func(f *fixture) { f.pay("p2", nok("300.00"), "5550001112", "") })
		c2 := credit("c2", "2026-04-20", nok("300.00"), "KID 5550001112")
		r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: []txsync.Entry{c2}})
		require.NoError(t, err)
		require.Len(t, r.Settled, 1)
		assert.Equal(t, "p2", r.Settled[0].Payment)
		reported(t, f, c1)
	})

	t.Run("given again", func(t *testing.T) {
		t.Parallel()
		f, c1 := fullAfterClosing(t, 100, nil)
		_, err := f.r.Track(t.Context(), reconcile.Payment{RequestID: "p2", Created: f.clk.Now(),
			Product: payments.ProductNorwegianDomestic, Amount: nok("10.00"), CreditorBBAN: merchantBBAN, Remittance: strings.Repeat("x", 140)})
		require.NoError(t, err)
		r := f.apply(c1)
		require.Len(t, r.Unmatched, 1, "a credit read for the first time: %+v", r)
		assert.Equal(t, c1.Key, r.Unmatched[0].Key)
	})
}
