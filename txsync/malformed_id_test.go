package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/txsync"
)

// TestMalformedTransactionIDIsNoIdentity: a transactionId no path could
// carry (bytes that are not UTF-8, which encoding/json reads as U+FFFD so
// that two different ids of the bank become one; a control character)
// is not what the sync recognises an entry by: entries under such ids
// are matched by their facts, as entries without an id (two entries
// whose ids read as one stay two, and one leaving the answer is that
// one removed), and the id is not kept in their Version. Such an id was
// kept in the state as the entry's identity, and shown in a Removal's
// Previous as the bank's id.
func TestMalformedTransactionIDIsNoIdentity(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	a := booked(t, "T\ufffd", "2026-03-10", "-10.00", "A", "a")
	b := booked(t, "T\ufffd", "2026-03-10", "-20.00", "B", "b")
	c := booked(t, "T\x1b[2J", "2026-03-10", "-30.00", "C", "c")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{a, b, c}})
	require.NoError(t, err)
	require.Len(t, d.Added, 3)
	keyOf := map[string]txsync.Key{}
	for _, e := range d.Added {
		keyOf[e.Transaction.CreditorName] = e.Key
	}
	require.Len(t, keyOf, 3)
	from, err := s.From(ctx, k)
	require.NoError(t, err)

	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{b, c}})
	require.NoError(t, err)
	assert.Empty(t, d.Added)
	assert.Empty(t, d.Changed, "b is not a change of a")
	require.Len(t, d.Removed, 1)
	assert.Equal(t, keyOf["A"], d.Removed[0].Key)
	assert.Empty(t, d.Removed[0].Previous.TransactionID, "a malformed id is not kept")
}
