package accounts_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// nilContext is a nil context.Context, the bad argument under test.
func nilContext() context.Context { return nil }

// A nil context is a bad argument: every call, and the iterators, refuse
// it before sending with a *client.ValidationError naming ctx, never a
// panic.
func TestNilContextRefused(t *testing.T) {
	c, n := testtpp.CountingClient(t, "AISP", `{}`)
	svc := newService(t, c)
	ctx := nilContext()
	calls := map[string]func() error{
		"StartConsent": func() error { _, err := svc.StartConsent(ctx); return err },
		"List":         func() error { _, err := svc.List(ctx, nil); return err },
		"Get":          func() error { _, err := svc.Get(ctx, accountID); return err },
		"Balances":     func() error { _, err := svc.Balances(ctx, accountID); return err },
		"Transactions": func() error { _, err := svc.Transactions(ctx, accountID, nil); return err },
		"TransactionsIter": func() error {
			for _, err := range svc.TransactionsIter(ctx, accountID, nil) {
				return err
			}
			return errors.New("no error yielded")
		},
		"TransactionDetails": func() error { _, err := svc.TransactionDetails(ctx, accountID, "t1"); return err },
		"CardAccounts":       func() error { _, err := svc.CardAccounts(ctx); return err },
		"CardTransactions":   func() error { _, err := svc.CardTransactions(ctx, cardAccountID, nil); return err },
		"Agreements":         func() error { _, err := svc.Agreements(ctx); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				err = call()
			}()
			var ve *client.ValidationError
			if !errors.Is(err, client.ErrNotSent) || !errors.As(err, &ve) || ve.Field != "ctx" {
				t.Fatalf("err = %v, want a refusal naming ctx", err)
			}
		})
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("%d requests reached the bank", got)
	}
	_ = accounts.BookingBoth
}
