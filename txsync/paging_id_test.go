package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/txsync"
)

// TestSameBookedEntryOnTwoPagesIsOneEntry checks that a booked entry the
// bank lists twice in one read, under one transactionId with the same
// facts (paging by limit and offset, docs/interface.md section 10, shifts
// by one when an entry is booked between two pages; a booked entry's
// transactionId is stable, section 2.9), is reported once. Before the fix
// the second listing got occurrence 1, found no stored twin and was
// added under a second key: the transaction was doubled (and the next
// read reported that second key removed).
func TestSameBookedEntryOnTwoPagesIsOneEntry(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	a := booked(t, "1", "2026-03-10", "-10.00", "A", "a")
	b := booked(t, "2", "2026-03-10", "-20.00", "B", "b")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{a}})
	require.NoError(t, err)
	require.Len(t, d.Added, 1)
	from, err := s.From(ctx, k)
	require.NoError(t, err)

	// Page 1 ends with a; b is booked; page 2 (offset shifted) repeats a.
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{b, a, a}})
	require.NoError(t, err)
	require.Len(t, d.Added, 1, "only b is new: %v", d.Added)
	assert.Equal(t, "2", d.Added[0].Transaction.TransactionID)
	assert.Empty(t, d.Removed)

	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{b, a}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "nothing removed or added: %v", d)
}

// TestPendingBookedUnderItsOldDateKeepsItsID checks that a pending entry
// with a transactionId, booked under its own date older than the overlap
// window with the same id but the merchant's text in place of the
// reservation's, is that entry's change (an entry with a transactionId
// the sync knows is that entry; docs/interface.md section 2.9). Before the
// fix the id was compared only for entries inside the window: the
// pending entry was reported removed (PendingVanished) and the booked
// one, older than the window, was neither added nor kept: the
// transaction was lost.
func TestPendingBookedUnderItsOldDateKeepsItsID(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	p := pending(t, "2026-03-01", "-100.00", "", "RESERVASJON")
	p.TransactionID = "P1"
	n := booked(t, "9", "2026-03-10", "-5.00", "N", "n")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{n}, Pending: []accounts.Transaction{p}})
	require.NoError(t, err)
	require.Len(t, d.Added, 2)
	key := d.Added[1].Key
	from, err := s.From(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "2026-03-01", from.String(), "asked from the pending entry's date")

	b := booked(t, "P1", "2026-03-01", "-100.00", "REMA 1000", "REMA 1000 OSLO")
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{n, b}})
	require.NoError(t, err)
	assert.Empty(t, d.Removed)
	assert.Empty(t, d.Added)
	require.Len(t, d.Changed, 1)
	assert.Equal(t, key, d.Changed[0].Key)
	assert.NotZero(t, d.Changed[0].What&txsync.Booked)

	from, err = s.From(ctx, k)
	require.NoError(t, err)
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{n, b}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "reported once: %v", d)
}
