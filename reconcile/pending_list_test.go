package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestPendingListEntryDoesNotSettle: an entry a TPP gives txsync in
// Read.Pending is pending, whether or not its Status was set (a read
// built in code, from the bank's pending list): it does not settle a
// payment until the bank books it. Before, txsync counted a pending
// entry without Status as booked, and its Delta entry carried no Status,
// so the reconciler settled the payment with money the bank had not
// booked (and withdrew it when the entry left the pending list).
func TestPendingListEntryDoesNotSettle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	s, err := txsync.New(f.st, txsync.WithClock(f.clk.Now))
	require.NoError(t, err)
	l, err := s.Link(t.Context(), "merchant", []accounts.Account{{ResourceID: "r1", IBAN: merchantIBAN}}, nil)
	require.NoError(t, err)
	key := l.Accounts[0].Key
	require.NoError(t, f.r.Watch(t.Context(), key, accounts.Account{IBAN: merchantIBAN}))
	_, err = f.r.Track(t.Context(), payment("p1", f.clk.Now()))
	require.NoError(t, err)

	c := *credit("c", "2026-03-16", nok("100.00"), "KID 5550001112").Transaction
	c.Status, c.TransactionID = "", "" // from the pending list, built in code
	d, err := s.Apply(t.Context(), key, txsync.Read{Pending: []accounts.Transaction{c}})
	require.NoError(t, err)
	require.Len(t, d.Added, 1)
	assert.Equal(t, accounts.BookingPending, d.Added[0].Transaction.Status, "the delta says the entry is pending")
	r, err := f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	assert.Empty(t, r.Settled, "a pending credit settles nothing")
	st, err := f.r.Payment(t.Context(), "p1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Awaiting, st.Settlement)

	// Booked (built in code too: no Status, in the booked list): settled.
	b := c
	b.TransactionID = "t1"
	d, err = s.Apply(t.Context(), key, txsync.Read{Booked: []accounts.Transaction{b}})
	require.NoError(t, err)
	r, err = f.r.Apply(t.Context(), d)
	require.NoError(t, err)
	require.Len(t, r.Settled, 1)
	assert.Equal(t, "p1", r.Settled[0].Payment)
	assert.Empty(t, r.Withdrawn)
}
