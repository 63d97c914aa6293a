package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/txsync"
)

// TestUnmatchedCreditChangedUnreadableReported: a credit reported in
// Round.Unmatched that the bank then changes so that it can no longer be
// read (its amount unreadable, absent or zero, or no booking nor value
// date) is reported in Round.Unreadable as it now is, once: a delta given
// again does not report it again. Before, it was reported nowhere, and
// the TPP kept the unmatched credit as the bank no longer shows it.
func TestUnmatchedCreditChangedUnreadableReported(t *testing.T) {
	t.Parallel()
	text := "Faktura 1001 mars"
	dateless := credit("c1", "2026-03-16", nok("100.00"), text)
	dateless.Transaction.BookingDate, dateless.Transaction.ValueDate = date.Date{}, date.Date{}
	cases := []struct {
		name    string
		what    txsync.What
		changed txsync.Entry
	}{
		{"unreadable amount", txsync.Amount, credit("c1", "2026-03-16", unreadableAmount(t), text)},
		{"zero amount", txsync.Amount, credit("c1", "2026-03-16", nok("0.00"), text)},
		{"no amount", txsync.Amount, credit("c1", "2026-03-16", money.Amount{}, text)},
		{"no date", txsync.Dates, dateless},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1000.00"), "", text)
			r := f.apply(credit("c1", "2026-03-16", nok("100.00"), text))
			require.Len(t, r.Unmatched, 1)

			d := &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: c.changed, What: c.what}}}
			r, err := f.r.Apply(t.Context(), d)
			require.NoError(t, err)
			require.Len(t, r.Unreadable, 1, "what was reported unmatched is no longer what the bank shows")
			assert.Equal(t, c.changed.Key, r.Unreadable[0].Key)
			assert.Equal(t, c.changed.Transaction.BookingDate, r.Unreadable[0].BookingDate)
			assert.Empty(t, r.Unmatched)
			assert.Empty(t, r.Settled)

			r, err = f.r.Apply(t.Context(), d) // the same delta again
			require.NoError(t, err)
			assert.Empty(t, r.Unreadable, "once")
		})
	}
}

// TestUnmatchedCreditChangedReadableNotReportedAgain: a credit reported
// unmatched that the bank changes and that still matches nothing is not
// reported a second time (a change to what can be read is matched
// again, quietly, as before).
func TestUnmatchedCreditChangedReadableNotReportedAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1000.00"), "", "Faktura 1001 mars")
	require.Len(t, f.apply(credit("c1", "2026-03-16", nok("100.00"), "Faktura 1001 mars")).Unmatched, 1)
	changed := credit("c1", "2026-03-16", nok("90.00"), "Faktura 1001 mars")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
}

// TestFreedCreditChangedUnreadableReported: a credit a rejection freed,
// kept for the next Apply to report unmatched, that the bank changes in
// that Apply's delta so that it can no longer be read is reported in
// Round.Unreadable as it now is, not in Round.Unmatched as it was.
func TestFreedCreditChangedUnreadableReported(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusRJCT))
	changed := credit("c1", "2026-03-16", unreadableAmount(t), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Unreadable, 1)
	assert.Equal(t, changed.Key, r.Unreadable[0].Key)
	assert.Empty(t, r.Unmatched, "reported as the bank now shows it")
	assert.True(t, f.apply().Empty(), "once")
}

// TestChangedUnreadableNotReportedAgainByAFirstRead: a credit changed so
// that it can no longer be read, reported so, is known by its facts as
// they now are: a first read (the sync's state started over) that lists
// it anew, under a new key, does not report it again.
func TestChangedUnreadableNotReportedAgainByAFirstRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p1", nok("1000.00"), "", "Faktura 1001 mars")
	require.Len(t, f.apply(credit("c1", "2026-03-16", nok("100.00"), "Faktura 1001 mars")).Unmatched, 1)
	changed := credit("c1", "2026-03-16", unreadableAmount(t), "Faktura 1001 mars")
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Changed: []txsync.Change{{Entry: changed, What: txsync.Amount}}})
	require.NoError(t, err)
	require.Len(t, r.Unreadable, 1)

	anew := changed
	anew.Key = txsync.Key(string(acct) + "-c1-anew")
	r, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, First: true, Added: []txsync.Entry{anew}})
	require.NoError(t, err)
	assert.Empty(t, r.Unreadable, "once")
	assert.Equal(t, 1, r.Repeated)
}
