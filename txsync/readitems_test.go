package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/txsync"
)

// TestPendingListEntryWithoutStatus: an entry of a read's pending list
// built in code without a status is pending by its list, in Apply and
// in ApplyCard alike, and the caller's read keeps its entry as it was.
func TestPendingListEntryWithoutStatus(t *testing.T) {
	t.Run("account", func(t *testing.T) {
		s, k := linked(t)
		p := pending(t, "2026-03-10", "-100.00", "Shell", "Drivstoff")
		p.Status = ""
		r := txsync.Read{Pending: []accounts.Transaction{p}}
		d, err := s.Apply(t.Context(), k, r)
		require.NoError(t, err)
		require.Len(t, d.Added, 1)
		assert.Equal(t, accounts.BookingPending, d.Added[0].Transaction.Status)
		assert.Empty(t, r.Pending[0].Status, "the caller's read is not written")
	})
	t.Run("card", func(t *testing.T) {
		s, k := linked(t)
		c := accounts.CardTransaction{BookingDate: day(t, "2026-03-10"), TransactionDate: day(t, "2026-03-09"),
			TransactionAmount: money.MustParse("-49.00", "NOK"), TransactionDetails: "Kaffe"}
		r := txsync.CardRead{Pending: []accounts.CardTransaction{c}}
		d, err := s.ApplyCard(t.Context(), k, r)
		require.NoError(t, err)
		require.Len(t, d.Added, 1)
		assert.Equal(t, accounts.BookingPending, d.Added[0].Card.Status)
		assert.Empty(t, r.Pending[0].Status, "the caller's read is not written")
	})
}
