package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestEmulatorTransactionDetailsShareListBudget: without the PSU present
// TransactionDetails counts within the transactions list's 4 calls per
// 24 hours (the ASSUMPTION on Service.TransactionDetails), so whichever
// way the bank counts details the SDK never sends a fifth call. After 4
// list calls a details call is refused before anything reaches the
// emulator; after 3 list calls and 1 details call a list call is refused
// the same way.
func TestEmulatorTransactionDetailsShareListBudget(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		calls []string // "list" or "details", all allowed
		last  string   // refused unsent
	}{
		{"4 lists, then details", []string{"list", "list", "list", "list"}, "details"},
		{"3 lists and details, then a list", []string{"list", "list", "list", "details"}, "list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := startBank(t, nil)
			ctx := t.Context()
			sess, id := b.firstAccount(ctx, t, emulator.CustomerKari)
			page, err := b.svc.Transactions(ctx, id, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked, Limit: 1}, present(sess)...)
			require.NoError(t, err)
			require.NotEmpty(t, page.Booked)
			tid := page.Booked[0].TransactionID
			require.NotEmpty(t, tid)
			call := func(kind string) error {
				if kind == "details" {
					_, err := b.svc.TransactionDetails(ctx, id, tid, absent(sess)...)
					return err
				}
				_, err := b.svc.Transactions(ctx, id, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, absent(sess)...)
				return err
			}
			for i, kind := range tt.calls {
				require.NoError(t, call(kind), "call %d (%s)", i+1, kind)
			}
			left, err := budget.Of(b.svc.Client()).Remaining(ctx, id, budget.Transactions)
			require.NoError(t, err)
			assert.Zero(t, left.Remaining)

			sent := b.log.countAll(id)
			err = call(tt.last)
			require.ErrorIs(t, err, budget.ErrExhausted)
			var be *budget.ExhaustedError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, budget.Transactions, be.Endpoint)
			assert.Equal(t, sent, b.log.countAll(id), "nothing reached the emulator")
		})
	}
}
