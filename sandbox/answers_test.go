package sandbox_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
)

// members returns the top-level member names of v's JSON form.
func members(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	return slices.Sorted(maps.Keys(m))
}

// The answers of CreateAccount and CreateCardAccount are the account as
// the account information service shows it (docs/interface.md section 10
// "JSON shapes"): the emulator sends an account's balances, and a card
// account's creditLimit, balances and relatedAccount (the reference to pay
// from the card with). Every member arrives in a typed field; none is
// dropped on the way.
func TestCreatedMockAccountsKeepEveryMember(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	const number = "01017012345"
	cust, err := e.sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: number, CustomerType: client.Private, CustomerName: "Per Testesen"})
	require.NoError(t, err)

	acc, err := e.sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerID: cust.CustomerID, Currency: "NOK", Name: "Brukskonto", Balance: "1000.00"})
	require.NoError(t, err)
	assert.Equal(t, []string{"_links", "balances", "bban", "bic", "cashAccountType", "currency", "iban", "name", "product", "resourceId"},
		members(t, acc))
	require.Len(t, acc.Balances, 2)
	assert.Equal(t, accounts.BalanceClosingBooked, acc.Balances[0].BalanceType)
	assert.True(t, acc.Balances[0].BalanceAmount.Value.Equal(decimal.RequireFromString("1000")), acc.Balances[0].BalanceAmount.String())
	assert.Equal(t, "NOK", acc.Balances[0].BalanceAmount.Currency)

	card, err := e.sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerID: cust.CustomerID, Currency: "NOK", CreditLimit: "20000", Balance: "-500"})
	require.NoError(t, err)
	assert.Equal(t, []string{"_links", "balances", "creditLimit", "currency", "maskedPan", "name", "product", "relatedAccount", "resourceId"},
		members(t, card))
	require.NotNil(t, card.CreditLimit)
	assert.True(t, card.CreditLimit.Value.Equal(decimal.RequireFromString("20000")), card.CreditLimit.String())
	require.Len(t, card.Balances, 1)
	assert.Equal(t, accounts.BalanceForwardAvailable, card.Balances[0].BalanceType)
	ref := card.RelatedAccountID()
	require.NotEmpty(t, ref)
	assert.NotContains(t, card.String(), ref, "the related account is an account reference: redacted")
	assert.NotContains(t, acc.String(), acc.BBAN)
}
