package sandbox_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestMetaOfEveryCall: every method of the Service gives, on success
// against the emulator, the response metadata of its answer, whose
// RequestID is the X-Request-ID that went on the wire: a typed result by
// its Meta method, a list or a call without a result through
// client.SaveMeta.
func TestMetaOfEveryCall(t *testing.T) {
	t.Parallel()
	bank := testtpp.Server(t)
	creds, err := bank.NewTPP("Meta test TPP")
	require.NoError(t, err)
	var wire metatest.Wire
	hc := bank.Client()
	hc.Transport = wire.Transport(hc.Transport)
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(hc))
	require.NoError(t, err)
	sb, err := sandbox.New(c)
	require.NoError(t, err)

	var cust *sandbox.Customer
	var acc *sandbox.Account
	var card *sandbox.CardAccount
	saved := func(call func(ctx context.Context, ro client.RequestOption) error) func(context.Context) (client.Meta, error) {
		return func(ctx context.Context) (m client.Meta, err error) {
			err = call(ctx, client.SaveMeta(&m))
			return m, err
		}
	}
	calls := []struct {
		op     string
		status int
		call   func(context.Context) (client.Meta, error)
	}{
		{"sandbox.Initialize", http.StatusOK, saved(func(ctx context.Context, ro client.RequestOption) error { return sb.Initialize(ctx, ro) })},
		{"sandbox.Customers", http.StatusOK, saved(func(ctx context.Context, ro client.RequestOption) error {
			_, err := sb.Customers(ctx, nil, ro)
			return err
		})},
		{"sandbox.CreateCustomer", http.StatusCreated, func(ctx context.Context) (m client.Meta, err error) {
			cust, err = sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Per Testesen"})
			return meta(cust, err)
		}},
		{"sandbox.Customer", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(sb.Customer(ctx, cust.CustomerID)) }},
		{"sandbox.CreateAccount", http.StatusCreated, func(ctx context.Context) (m client.Meta, err error) {
			acc, err = sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerID: cust.CustomerID, Currency: "NOK", Name: "Lønnskonto", Balance: "1000.00"})
			return meta(acc, err)
		}},
		{"sandbox.CreateTransactions", http.StatusCreated, saved(func(ctx context.Context, ro client.RequestOption) error {
			return sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{{
				TransactionAmount: sandbox.Amount{Amount: "-250.50", Currency: "NOK"}, CreditorName: "Rema 1000"}}, ro)
		})},
		{"sandbox.CreateCardAccount", http.StatusCreated, func(ctx context.Context) (m client.Meta, err error) {
			card, err = sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerNumber: "01017012345", Currency: "NOK", CreditLimit: "20000"})
			return meta(card, err)
		}},
		{"sandbox.CreateCardTransactions", http.StatusCreated, saved(func(ctx context.Context, ro client.RequestOption) error {
			return sb.CreateCardTransactions(ctx, card.ResourceID, []sandbox.CardTransaction{{
				TransactionAmount: sandbox.Amount{Amount: "-99.00", Currency: "NOK"}, TransactionDetails: "Kiosk"}}, ro)
		})},
		{"sandbox.CreateAgreement", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			fjordlys, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerFjordlys, Currency: "NOK", Name: "Prosjektkonto"})
			if err != nil {
				return client.Meta{}, err
			}
			return meta(sb.CreateAgreement(ctx, &sandbox.NewAgreement{Owner: emulator.CustomerFjordlys, Name: "Prosjekt", Engagements: []sandbox.Engagement{
				{Customer: emulator.CustomerFjordlys, Account: sandbox.AccountRef{IBAN: fjordlys.IBAN}, Roles: []string{sandbox.RoleView}}}}))
		}},
		{"sandbox.DeleteCustomer", http.StatusNoContent, saved(func(ctx context.Context, ro client.RequestOption) error {
			return sb.DeleteCustomer(ctx, cust.CustomerID, ro)
		})},
	}
	for _, c := range calls {
		before := len(wire.Sent())
		m, err := c.call(t.Context())
		require.NoError(t, err, c.op)
		if c.op == "sandbox.CreateAgreement" {
			before++ // the account made first
		}
		wire.Check(t, before, c.op, c.status, m)
	}
}

// meta returns the metadata of a result r of a call that ended with err.
func meta[T interface{ Meta() client.Meta }](r T, err error) (client.Meta, error) {
	if err != nil {
		return client.Meta{}, err
	}
	return r.Meta(), nil
}
