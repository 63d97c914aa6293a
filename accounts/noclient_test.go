package accounts

import (
	"context"
	"errors"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// A Service made without New (nil or zero) refuses every call before
// sending, as any other pre-send refusal: ErrNotSent and ErrValidation
// with the field "client".
func TestServiceWithoutClientRefuses(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]*Service{"nil": nil, "zero": {}} {
		errs := map[string]error{}
		_, errs["StartConsent"] = s.StartConsent(ctx)
		_, errs["List"] = s.List(ctx, nil)
		_, errs["Get"] = s.Get(ctx, "a1")
		_, errs["Balances"] = s.Balances(ctx, "a1")
		_, errs["Transactions"] = s.Transactions(ctx, "a1", nil)
		_, errs["TransactionsAt"] = s.TransactionsAt(ctx, "/v1/accounts/a1/transactions")
		_, errs["CardAccounts"] = s.CardAccounts(ctx)
		_, errs["CardBalances"] = s.CardBalances(ctx, "c1")
		_, errs["CardTransactions"] = s.CardTransactions(ctx, "c1", nil)
		for call, err := range errs {
			var ve *client.ValidationError
			if !errors.Is(err, client.ErrNotSent) || !errors.Is(err, client.ErrValidation) || !errors.Is(err, servicecall.ErrNoClient) ||
				!errors.As(err, &ve) || ve.Field != "client" {
				t.Errorf("%s Service %s: %v, want a not-sent validation refusal of the field client", name, call, err)
			}
		}
	}
}
