package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/txsync"
)

// incoming is a booked credit from Kari (money in: the debtor is the
// counterparty).
func incoming(t *testing.T, id, date, text string) accounts.Transaction {
	tr := booked(t, id, date, "100.00", "", text)
	tr.DebtorName = "Kari"
	return tr
}

// TestBookedEntryOlderThanWindowIsNotReportedAgainAsPendingsBooking
// checks that a booked entry reported before, older than the overlap
// window, which a later read lists again (asked from a tracked pending
// entry's date), is not taken for that pending entry's booking when the
// pending entry leaves the list. Before the fix the sync kept no trace
// of it, paired it with the vanished pending entry (same counterparty
// and text, amount, two days apart) and reported it a second time, as
// the pending entry's change to booked: a ledger applying the deltas
// counted the credit twice, money that arrived once.
func TestBookedEntryOlderThanWindowIsNotReportedAgainAsPendingsBooking(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	e := pending(t, "2026-03-01", "100.00", "", "Kaffe")
	e.DebtorName = "Kari"
	b := incoming(t, "B1", "2026-03-03", "Kaffe")
	n := booked(t, "N1", "2026-03-10", "-5.00", "N", "n")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{n, b}, Pending: []accounts.Transaction{e}})
	require.NoError(t, err)
	require.Len(t, d.Added, 3)
	from, err := s.From(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "2026-03-01", from.String(), "asked from the pending entry's date")

	// The pending list still holds e: nothing changes.
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{n, b}, Pending: []accounts.Transaction{e}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "%v", d)

	// The reservation is dropped; b, reported in the first read, is listed again.
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{n, b}})
	require.NoError(t, err)
	assert.Empty(t, d.Changed, "b was reported before: not e's booking")
	assert.Empty(t, d.Added)
	require.Len(t, d.Removed, 1)
	assert.Equal(t, txsync.PendingVanished, d.Removed[0].Reason)
}

// TestPendingBookedUnderOldDateBesideAHeldTwin checks that the booked
// entry held back for a tracked pending entry does not hide the pending
// entry's own booking when the bank books it, under its old date, with
// the same facts (a twin): the held entry pairs with one listing, the
// pending entry with the other.
func TestPendingBookedUnderOldDateBesideAHeldTwin(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	e := pending(t, "2026-03-01", "100.00", "", "Kaffe")
	e.DebtorName = "Kari"
	b := incoming(t, "", "2026-03-03", "Kaffe")
	n := booked(t, "N1", "2026-03-10", "-5.00", "N", "n")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{n, b}, Pending: []accounts.Transaction{e}})
	require.NoError(t, err)
	require.Len(t, d.Added, 3)
	pendingKey := d.Added[2].Key
	from, err := s.From(ctx, k)
	require.NoError(t, err)

	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{n, b, b}})
	require.NoError(t, err)
	assert.Empty(t, d.Added)
	assert.Empty(t, d.Removed)
	require.Len(t, d.Changed, 1, "the second listing is e's booking")
	assert.Equal(t, pendingKey, d.Changed[0].Key)
	assert.NotZero(t, d.Changed[0].What&txsync.Booked)
}
