package sandbox_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestMockAccountRulesMatchTheBank: a Norwegian BBAN is 11 digits, the
// last a MOD-11 check digit (docs/interface.md, "Check digits"), and an
// amount has at most the minor units of its ISO 4217 currency as fraction
// digits (section 2.1: "the number of fraction digits must equal the
// minor units of the given ISO 4217 currency"). The sandbox refuses a
// mock account or card account that breaks either (400 FORMAT_ERROR,
// sent past the Service); the Service refuses the same input before it
// is sent, with a *client.ValidationError naming the field. Before the
// fix it checked only that the BBAN had 11 digits and that the amounts
// were numbers, so each of these bodies went to the bank and came back
// 400.
func TestMockAccountRulesMatchTheBank(t *testing.T) {
	t.Parallel()
	sb, c, ct := countingEnv(t)
	ctx := t.Context()
	account := func(mod func(*sandbox.NewAccount)) *sandbox.NewAccount {
		a := &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Konto"}
		mod(a)
		return a
	}
	card := func(mod func(*sandbox.NewCardAccount)) *sandbox.NewCardAccount {
		a := &sandbox.NewCardAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Kort"}
		mod(a)
		return a
	}
	for _, tt := range []struct {
		name, path, field string
		body              any
	}{
		{"bban with a wrong check digit", "/v1/sandbox/accounts", "bban",
			account(func(a *sandbox.NewAccount) { a.BBAN = "12345678901" })},
		{"bban whose check digit would be 10", "/v1/sandbox/accounts", "bban",
			account(func(a *sandbox.NewAccount) { a.BBAN = "00000000060" })},
		{"balance with 3 fraction digits in NOK", "/v1/sandbox/accounts", "balance",
			account(func(a *sandbox.NewAccount) { a.Balance = "100.125" })},
		{"creditLine with a fraction in JPY", "/v1/sandbox/accounts", "creditLine",
			account(func(a *sandbox.NewAccount) { a.Currency, a.CreditLine = "JPY", "5000.5" })},
		{"balance with an exponent", "/v1/sandbox/accounts", "balance",
			account(func(a *sandbox.NewAccount) { a.Balance = "1e3" })},
		{"card creditLimit with 3 fraction digits", "/v1/sandbox/card-accounts", "creditLimit",
			card(func(a *sandbox.NewCardAccount) { a.CreditLimit = "5000.001" })},
		{"card balance with an exponent", "/v1/sandbox/card-accounts", "balance",
			card(func(a *sandbox.NewCardAccount) { a.Balance = "-1E2" })},
	} {
		// The bank's answer to the body sent as it is.
		_, err := c.Do(ctx, client.Operation{Name: "raw " + tt.name, Method: http.MethodPost, Path: tt.path, Body: tt.body}, nil)
		var ce *client.Error
		if assert.True(t, errors.As(err, &ce), "%s: the bank takes it: %v", tt.name, err) {
			assert.Equal(t, http.StatusBadRequest, ce.StatusCode, tt.name)
			assert.True(t, ce.HasCode("FORMAT_ERROR"), tt.name)
		}

		sent := ct.n.Load()
		switch b := tt.body.(type) {
		case *sandbox.NewAccount:
			_, err = sb.CreateAccount(ctx, b)
		case *sandbox.NewCardAccount:
			_, err = sb.CreateCardAccount(ctx, b)
		}
		require.Error(t, err, tt.name)
		assert.ErrorIs(t, err, client.ErrNotSent, tt.name)
		var ve *client.ValidationError
		if assert.True(t, errors.As(err, &ve), "%s: %v", tt.name, err) {
			assert.Equal(t, tt.field, ve.Field, tt.name)
		}
		assert.Equal(t, sent, ct.n.Load(), "%s: refused locally, nothing sent", tt.name)
	}

	// What the bank takes passes: a valid BBAN, fewer fraction digits than
	// the currency has, whole amounts and negative ones.
	acc, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, BBAN: "12345678903",
		Currency: "NOK", Name: "Konto", Balance: "100.5", CreditLine: "-0.10"})
	require.NoError(t, err)
	assert.Equal(t, "12345678903", acc.BBAN)
	_, err = sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "JPY", Name: "Yen", Balance: "1200"})
	require.NoError(t, err)
	_, err = sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Kort",
		CreditLimit: "5000.00", Balance: "-12.3"})
	require.NoError(t, err)
}

// TestMockTransactionAmountsMatchTheBank: a mock transaction's amount in
// a currency it names has at most the currency's minor units as
// fraction digits (docs/interface.md section 2.1), and no amount is
// written with an exponent; the sandbox answers 400 otherwise, and the
// Service refuses the same before sending, naming the element's field.
// Before the fix it checked only that the amounts were numbers.
func TestMockTransactionAmountsMatchTheBank(t *testing.T) {
	t.Parallel()
	sb, c, ct := countingEnv(t)
	ctx := t.Context()
	acc, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Konto"})
	require.NoError(t, err)
	card, err := sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Kort"})
	require.NoError(t, err)
	good := sandbox.Transaction{TransactionAmount: sandbox.Amount{Amount: "-10.50", Currency: "NOK"}, CreditorName: "Butikk"}
	goodCard := sandbox.CardTransaction{TransactionAmount: sandbox.Amount{Amount: "-99.90", Currency: "NOK"}, TransactionDetails: "Kafé"}
	for _, tt := range []struct {
		name, path, field string
		body              any
	}{
		{"amount with 3 fraction digits in NOK", "/v1/sandbox/accounts/" + acc.ResourceID + "/transactions", "[1].transactionAmount.amount",
			[]sandbox.Transaction{good, {TransactionAmount: sandbox.Amount{Amount: "-10.505", Currency: "NOK"}}}},
		{"amount with an exponent", "/v1/sandbox/accounts/" + acc.ResourceID + "/transactions", "[1].transactionAmount.amount",
			[]sandbox.Transaction{good, {TransactionAmount: sandbox.Amount{Amount: "-1e2"}}}},
		{"card amount with an exponent", "/v1/sandbox/card-accounts/" + card.ResourceID + "/transactions", "[1].transactionAmount.amount",
			[]sandbox.CardTransaction{goodCard, {TransactionAmount: sandbox.Amount{Amount: "-1E1"}}}},
		{"originalAmount with 3 fraction digits in EUR", "/v1/sandbox/card-accounts/" + card.ResourceID + "/transactions", "[1].originalAmount.amount",
			[]sandbox.CardTransaction{goodCard, {TransactionAmount: sandbox.Amount{Amount: "-110.00"},
				OriginalAmount: &sandbox.Amount{Amount: "-9.999", Currency: "EUR"}}}},
	} {
		_, err := c.Do(ctx, client.Operation{Name: "raw " + tt.name, Method: http.MethodPost, Path: tt.path, Body: tt.body}, nil)
		var ce *client.Error
		if assert.True(t, errors.As(err, &ce), "%s: the bank takes it: %v", tt.name, err) {
			assert.Equal(t, http.StatusBadRequest, ce.StatusCode, tt.name)
		}
		sent := ct.n.Load()
		switch b := tt.body.(type) {
		case []sandbox.Transaction:
			err = sb.CreateTransactions(ctx, acc.ResourceID, b)
		case []sandbox.CardTransaction:
			err = sb.CreateCardTransactions(ctx, card.ResourceID, b)
		}
		require.Error(t, err, tt.name)
		assert.ErrorIs(t, err, client.ErrNotSent, tt.name)
		var ve *client.ValidationError
		if assert.True(t, errors.As(err, &ve), "%s: %v", tt.name, err) {
			assert.Equal(t, tt.field, ve.Field, tt.name)
		}
		assert.Equal(t, sent, ct.n.Load(), "%s: refused locally, nothing sent", tt.name)
	}
	require.NoError(t, sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{good,
		{TransactionAmount: sandbox.Amount{Amount: "250"}, DebtorName: "Arbeidsgiver"}}))
	require.NoError(t, sb.CreateCardTransactions(ctx, card.ResourceID, []sandbox.CardTransaction{goodCard,
		{TransactionAmount: sandbox.Amount{Amount: "-110.00"}, OriginalAmount: &sandbox.Amount{Amount: "-9.99", Currency: "EUR"}}}))
}
