package accounts_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestDotAccountIDRefused: "." and ".." are not account ids; as a path
// segment they would change the path (/v1/accounts/../balances). Every
// call that puts an account, card account or transaction id in a path
// refuses them with a *client.ValidationError on that field and sends
// nothing, and so is an empty one.
func TestDotAccountIDRefused(t *testing.T) {
	t.Parallel()
	c, n := testtpp.CountingClient(t, "Dot AISP", `{}`)
	svc := newService(t, c)
	ctx := context.Background()
	for _, id := range []string{".", ".."} {
		for name, tc := range map[string]struct {
			field string
			call  func() error
		}{
			"Get":          {"accountId", func() error { _, err := svc.Get(ctx, id); return err }},
			"Balances":     {"accountId", func() error { _, err := svc.Balances(ctx, id); return err }},
			"Transactions": {"accountId", func() error { _, err := svc.Transactions(ctx, id, nil); return err }},
			"TransactionDetails": {"accountId", func() error {
				_, err := svc.TransactionDetails(ctx, id, "t1")
				return err
			}},
			"TransactionDetails id": {"transactionId", func() error {
				_, err := svc.TransactionDetails(ctx, accountID, id)
				return err
			}},
			"CardAccount":  {"cardAccountId", func() error { _, err := svc.CardAccount(ctx, id); return err }},
			"CardBalances": {"cardAccountId", func() error { _, err := svc.CardBalances(ctx, id); return err }},
			"CardTransactions": {"cardAccountId", func() error {
				_, err := svc.CardTransactions(ctx, id, nil)
				return err
			}},
		} {
			err := tc.call()
			var ve *client.ValidationError
			if assert.True(t, errors.As(err, &ve), "%s(%q): %v", name, id, err) {
				assert.Equal(t, tc.field, ve.Field, name)
			}
			assert.ErrorIs(t, err, client.ErrValidation, name)
		}
	}
	_, err := svc.Balances(ctx, "")
	assert.ErrorIs(t, err, client.ErrNotSent)
	assert.ErrorIs(t, err, client.ErrValidation)
	assert.Zero(t, n.Load(), "nothing reaches the bank")
}
