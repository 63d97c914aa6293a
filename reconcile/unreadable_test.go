package reconcile_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// unreadableAmount is an amount the bank sent that cannot be read.
func unreadableAmount(t *testing.T) money.Amount {
	t.Helper()
	var a money.Amount
	require.NoError(t, json.Unmarshal([]byte(`{"amount":"1 250,00","currency":"NOK"}`), &a))
	require.Error(t, a.Err())
	return a
}

// TestUnreadableEntriesReported: a booked entry whose amount cannot be
// read, is absent or zero, or that has no booking nor value date, cannot
// be matched, and is reported in Round.Unreadable with what is known (its
// key, date, amount as sent), once: a delta given again does not report
// it again. The payment it may be the credit of waits. Before, such an
// entry was skipped and reported nowhere.
func TestUnreadableEntriesReported(t *testing.T) {
	t.Parallel()
	dateless := credit("c4", "2026-03-16", nok("1250.00"), "KID "+futureKID)
	dateless.Transaction.BookingDate, dateless.Transaction.ValueDate = date.Date{}, date.Date{}
	cases := []struct {
		name  string
		entry txsync.Entry
		want  reconcile.Credit
	}{
		{"unreadable amount", credit("c1", "2026-03-16", unreadableAmount(t), "KID "+futureKID),
			reconcile.Credit{Key: txsync.Key(string(acct) + "-c1"), BookingDate: day("2026-03-16"), Amount: unreadableAmount(t)}},
		{"zero amount", credit("c2", "2026-03-16", nok("0.00"), "KID "+futureKID),
			reconcile.Credit{Key: txsync.Key(string(acct) + "-c2"), BookingDate: day("2026-03-16"), Amount: nok("0.00")}},
		{"no amount", credit("c3", "2026-03-16", money.Amount{}, "KID "+futureKID),
			reconcile.Credit{Key: txsync.Key(string(acct) + "-c3"), BookingDate: day("2026-03-16")}},
		{"no date", dateless, reconcile.Credit{Key: txsync.Key(string(acct) + "-c4"), Amount: nok("1250.00")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), futureKID, "")
			r := f.apply(c.entry)
			require.Len(t, r.Unreadable, 1, "reported, never dropped")
			got := r.Unreadable[0]
			assert.Equal(t, c.want.Key, got.Key)
			assert.Equal(t, c.want.BookingDate, got.BookingDate)
			assert.True(t, c.want.Amount.Equal(got.Amount), "the amount as sent: %v", got.Amount)
			assert.Empty(t, r.Settled)
			assert.Empty(t, r.Unmatched)
			assert.False(t, r.Empty())
			_, err := json.Marshal(r)
			require.NoError(t, err, "the round encodes")
			assert.Equal(t, reconcile.Awaiting, f.state("p1").Settlement)

			again := f.apply(c.entry)
			assert.Empty(t, again.Unreadable, "once")
			assert.Equal(t, 1, again.Repeated)
		})
	}
}

// TestBookedUnreadableReported: a pending entry booked with an amount
// that cannot be read is reported too.
func TestBookedUnreadableReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	e := credit("c1", "2026-03-16", unreadableAmount(t), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: e, What: txsync.Booked}}})
	require.NoError(t, err)
	require.Len(t, r.Unreadable, 1)
	assert.Equal(t, e.Key, r.Unreadable[0].Key)
}

// TestHeldCreditChangedUnreadable: a credit held for a payment (booked in
// the future) that the bank changes so that its amount can no longer be
// read is let go and reported in Round.Unreadable. Before, it was let go
// and reported nowhere.
func TestHeldCreditChangedUnreadable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1250.00"), futureKID, "")
	_, err := f.r.Apply(t.Context(), future(credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)))
	require.NoError(t, err)
	changed := credit("c1", "2026-03-19", unreadableAmount(t), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Unreadable, 1)
	assert.Equal(t, changed.Key, r.Unreadable[0].Key)
	st := f.state("p1")
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
	assert.Empty(t, st.HeldBooking)
}

// TestUnreadableBeforeWatchSkipped: an unreadable entry dated before the
// account was watched is no payment's, as any booking: not reported.
func TestUnreadableBeforeWatchSkipped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	r := f.apply(credit("c1", "2026-03-10", unreadableAmount(t), ""))
	assert.Empty(t, r.Unreadable)
}

// TestSettlingCreditChangedUnreadable: the credit that settled a payment,
// changed by the bank so that its amount can no longer be read, withdraws
// the settlement, and is reported in Round.Unreadable as it now is.
func TestSettlingCreditChangedUnreadable(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	changed := credit("c1", "2026-03-16", unreadableAmount(t), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Withdrawn, 1)
	require.Len(t, r.Unreadable, 1)
	assert.Equal(t, changed.Key, r.Unreadable[0].Key)
	r, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	assert.Empty(t, r.Unreadable, "once")
}
