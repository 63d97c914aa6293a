package sandbox_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// countingTransport counts the requests that leave the client.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// countingEnv returns a Service talking to a fresh emulator and the
// counter of the requests it sent.
func countingEnv(t *testing.T) (*sandbox.Service, *client.Client, *countingTransport) {
	t.Helper()
	bank := testtpp.Server(t)
	ct := &countingTransport{next: bank.Client().Transport}
	c := testtpp.NewClient(t, bank, "Sandbox validation TPP", client.WithHTTPClient(&http.Client{Transport: ct}))
	sb, err := sandbox.New(c)
	require.NoError(t, err)
	return sb, c, ct
}

// Personal data the bad inputs below carry; no error message may show it.
const (
	pdNumber = "13039319955"
	pdName   = "Kari Nordmann"
	pdBBAN   = "12345678903"
	pdIBAN   = "NO9312345678903"
)

// badInput is a call whose input breaks one local rule.
type badInput struct {
	name  string
	field string
	call  func(context.Context, *sandbox.Service) error
}

func badInputs() []badInput {
	long := func(n int) string { return strings.Repeat("å", n) }
	customer := func(mod func(*sandbox.NewCustomer)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			n := &sandbox.NewCustomer{CustomerNumber: pdNumber, CustomerType: client.Private, CustomerName: pdName}
			mod(n)
			_, err := s.CreateCustomer(ctx, n)
			return err
		}
	}
	account := func(mod func(*sandbox.NewAccount)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			a := &sandbox.NewAccount{CustomerNumber: pdNumber, BBAN: pdBBAN, Currency: "NOK", Name: pdName + "s konto", Balance: "100"}
			mod(a)
			_, err := s.CreateAccount(ctx, a)
			return err
		}
	}
	card := func(mod func(*sandbox.NewCardAccount)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			a := &sandbox.NewCardAccount{CustomerNumber: pdNumber, Currency: "NOK", Name: pdName + "s kort", CreditLimit: "5000"}
			mod(a)
			_, err := s.CreateCardAccount(ctx, a)
			return err
		}
	}
	// tx builds two transactions, the second changed by mod, so the field
	// names the index of the bad one.
	tx := func(mod func(*sandbox.Transaction)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			good := sandbox.Transaction{BookingDate: "2026-03-01", TransactionAmount: sandbox.Amount{Amount: "-250.00", Currency: "NOK"},
				CreditorName: pdName, CreditorAccount: &sandbox.AccountRef{BBAN: pdBBAN}, RemittanceInformationUnstructured: "Husleie"}
			bad := good
			mod(&bad)
			return s.CreateTransactions(ctx, "enc!!account", []sandbox.Transaction{good, bad})
		}
	}
	cardTx := func(mod func(*sandbox.CardTransaction)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			good := sandbox.CardTransaction{TransactionDate: "2026-03-01", TransactionAmount: sandbox.Amount{Amount: "-99.90", Currency: "NOK"},
				TransactionDetails: "Kafé " + pdName}
			bad := good
			mod(&bad)
			return s.CreateCardTransactions(ctx, "enc!!card", []sandbox.CardTransaction{good, bad})
		}
	}
	agreement := func(mod func(*sandbox.NewAgreement)) func(context.Context, *sandbox.Service) error {
		return func(ctx context.Context, s *sandbox.Service) error {
			a := &sandbox.NewAgreement{Owner: "912345688", Name: "Fjordlys " + pdName, Engagements: []sandbox.Engagement{
				{Customer: pdNumber, Account: sandbox.AccountRef{IBAN: pdIBAN}, Roles: []string{sandbox.RoleView}}}}
			mod(a)
			_, err := s.CreateAgreement(ctx, a)
			return err
		}
	}
	return []badInput{
		// Customers.
		{"nil customer", "body", func(ctx context.Context, s *sandbox.Service) error { _, err := s.CreateCustomer(ctx, nil); return err }},
		{"customerNumber with a letter", "customerNumber", customer(func(n *sandbox.NewCustomer) { n.CustomerNumber = "1303931995x" })},
		{"customerNumber of 10 digits", "customerNumber", customer(func(n *sandbox.NewCustomer) { n.CustomerNumber = pdNumber[:10] })},
		{"customerType unknown", "customerType", customer(func(n *sandbox.NewCustomer) { n.CustomerType = "BUSINESS" })},
		{"customerName empty", "customerName", customer(func(n *sandbox.NewCustomer) { n.CustomerName = "" })},
		{"customerName with an emoji", "customerName", customer(func(n *sandbox.NewCustomer) { n.CustomerName = pdName + " \u2705" })},
		{"customerName outside the BMP", "customerName", customer(func(n *sandbox.NewCustomer) { n.CustomerName = pdName + " \U00010348" })},
		{"delete: empty customer id", "customerId", func(ctx context.Context, s *sandbox.Service) error { return s.DeleteCustomer(ctx, "") }},
		{"delete: customer id ..", "customerId", func(ctx context.Context, s *sandbox.Service) error { return s.DeleteCustomer(ctx, "..") }},
		{"get: customer id .", "customerId", func(ctx context.Context, s *sandbox.Service) error { _, err := s.Customer(ctx, "."); return err }},
		{"get: customer id too long", "customerId", func(ctx context.Context, s *sandbox.Service) error {
			_, err := s.Customer(ctx, strings.Repeat("a", 257))
			return err
		}},

		// Accounts.
		{"nil account", "body", func(ctx context.Context, s *sandbox.Service) error { _, err := s.CreateAccount(ctx, nil); return err }},
		{"account without owner", "customerId", account(func(a *sandbox.NewAccount) { a.CustomerNumber = "" })},
		{"account customerNumber of 1 digit", "customerNumber", account(func(a *sandbox.NewAccount) { a.CustomerNumber = "1" })},
		{"account bban with spaces", "bban", account(func(a *sandbox.NewAccount) { a.BBAN = "1234 56 78903" })},
		{"account bban of 10 digits", "bban", account(func(a *sandbox.NewAccount) { a.BBAN = pdBBAN[:10] })},
		{"account without currency", "currency", account(func(a *sandbox.NewAccount) { a.Currency = "" })},
		{"account currency in lower case", "currency", account(func(a *sandbox.NewAccount) { a.Currency = "nok" })},
		{"account balance with a comma", "balance", account(func(a *sandbox.NewAccount) { a.Balance = "1,5" })},
		{"account creditLine not a number", "creditLine", account(func(a *sandbox.NewAccount) { a.CreditLine = "x" })},
		{"account name with an emoji", "name", account(func(a *sandbox.NewAccount) { a.Name = "Konto \u2705" })},
		{"account name of 71 characters", "name", account(func(a *sandbox.NewAccount) { a.Name = long(71) })},
		{"account name not UTF-8", "name", account(func(a *sandbox.NewAccount) { a.Name = "Konto \xff" })},
		{"account product with an emoji", "product", account(func(a *sandbox.NewAccount) { a.Product = "BRUKSKONTO \U0001F600" })},
		{"account cashAccountType with an emoji", "cashAccountType", account(func(a *sandbox.NewAccount) { a.CashAccountType = "CACC\u2615" })},
		{"account customerId with an emoji", "customerId", account(func(a *sandbox.NewAccount) { a.CustomerNumber, a.CustomerID = "", "enc!!\u2764" })},

		// Card accounts.
		{"nil card account", "body", func(ctx context.Context, s *sandbox.Service) error {
			_, err := s.CreateCardAccount(ctx, nil)
			return err
		}},
		{"card account without owner", "customerId", card(func(a *sandbox.NewCardAccount) { a.CustomerNumber = "" })},
		{"card account customerNumber with a letter", "customerNumber", card(func(a *sandbox.NewCardAccount) { a.CustomerNumber = "91234568x" })},
		{"card account without currency", "currency", card(func(a *sandbox.NewCardAccount) { a.Currency = "" })},
		{"card account unknown currency", "currency", card(func(a *sandbox.NewCardAccount) { a.Currency = "XYZ" })},
		{"card account creditLimit NaN", "creditLimit", card(func(a *sandbox.NewCardAccount) { a.CreditLimit = "NaN" })},
		{"card account balance not a number", "balance", card(func(a *sandbox.NewCardAccount) { a.Balance = "-1 200" })},
		{"card account name with an emoji", "name", card(func(a *sandbox.NewCardAccount) { a.Name = "Kort \u2705" })},
		{"card account maskedPan of 36 characters", "maskedPan", card(func(a *sandbox.NewCardAccount) { a.MaskedPan = strings.Repeat("5", 36) })},
		{"card account maskedPan with an emoji", "maskedPan", card(func(a *sandbox.NewCardAccount) { a.MaskedPan = "552216******\u2705" })},
		{"card account product with an emoji", "product", card(func(a *sandbox.NewCardAccount) { a.Product = "Kredittkort \u2615" })},

		// Transactions.
		{"transactions: account id ..", "accountId", func(ctx context.Context, s *sandbox.Service) error {
			return s.CreateTransactions(ctx, "..", []sandbox.Transaction{{TransactionAmount: sandbox.Amount{Amount: "1"}}})
		}},
		{"no transactions", "body", func(ctx context.Context, s *sandbox.Service) error {
			return s.CreateTransactions(ctx, "enc!!account", nil)
		}},
		{"transaction amount empty", "[1].transactionAmount.amount", tx(func(t *sandbox.Transaction) { t.TransactionAmount.Amount = "" })},
		{"transaction amount not a number", "[1].transactionAmount.amount", tx(func(t *sandbox.Transaction) { t.TransactionAmount.Amount = "1e" })},
		{"transaction currency in lower case", "[1].transactionAmount.currency", tx(func(t *sandbox.Transaction) { t.TransactionAmount.Currency = "nok" })},
		{"transaction bookingStatus", "[1].bookingStatus", tx(func(t *sandbox.Transaction) { t.BookingStatus = "both" })},
		{"transaction bookingDate", "[1].bookingDate", tx(func(t *sandbox.Transaction) { t.BookingDate = "01.03.2026" })},
		{"transaction valueDate", "[1].valueDate", tx(func(t *sandbox.Transaction) { t.ValueDate = "2026-02-30" })},
		{"transaction creditorName with an emoji", "[1].creditorName", tx(func(t *sandbox.Transaction) { t.CreditorName = pdName + " \u2705" })},
		{"transaction creditorName of 71 characters", "[1].creditorName", tx(func(t *sandbox.Transaction) { t.CreditorName = long(71) })},
		{"transaction debtorName outside the BMP", "[1].debtorName", tx(func(t *sandbox.Transaction) { t.DebtorName = pdName + " \U0001F600" })},
		{"transaction remittance with an emoji", "[1].remittanceInformationUnstructured", tx(func(t *sandbox.Transaction) {
			t.RemittanceInformationUnstructured = "Husleie \u2764"
		})},
		{"transaction remittance of 141 characters", "[1].remittanceInformationUnstructured", tx(func(t *sandbox.Transaction) {
			t.RemittanceInformationUnstructured = long(141)
		})},
		{"transaction code with an emoji", "[1].proprietaryBankTransactionCode", tx(func(t *sandbox.Transaction) { t.ProprietaryBankTransactionCode = "\u2615" })},
		{"transaction creditorAccount bban with an emoji", "[1].creditorAccount.bban", tx(func(t *sandbox.Transaction) {
			t.CreditorAccount = &sandbox.AccountRef{BBAN: pdBBAN + "\u2705"}
		})},
		{"transaction debtorAccount iban of 35 characters", "[1].debtorAccount.iban", tx(func(t *sandbox.Transaction) {
			t.DebtorAccount = &sandbox.AccountRef{IBAN: pdIBAN + strings.Repeat("0", 20)}
		})},

		// Card transactions.
		{"card transactions: empty card account id", "cardAccountId", func(ctx context.Context, s *sandbox.Service) error {
			return s.CreateCardTransactions(ctx, "", []sandbox.CardTransaction{{TransactionAmount: sandbox.Amount{Amount: "1"}}})
		}},
		{"no card transactions", "body", func(ctx context.Context, s *sandbox.Service) error {
			return s.CreateCardTransactions(ctx, "enc!!card", []sandbox.CardTransaction{})
		}},
		{"card transaction amount empty", "[1].transactionAmount.amount", cardTx(func(t *sandbox.CardTransaction) { t.TransactionAmount.Amount = "" })},
		{"card transaction originalAmount not a number", "[1].originalAmount.amount", cardTx(func(t *sandbox.CardTransaction) {
			t.OriginalAmount = &sandbox.Amount{Amount: "x", Currency: "EUR"}
		})},
		{"card transaction originalAmount currency", "[1].originalAmount.currency", cardTx(func(t *sandbox.CardTransaction) {
			t.OriginalAmount = &sandbox.Amount{Amount: "-9", Currency: "euro"}
		})},
		{"card transaction bookingStatus", "[1].bookingStatus", cardTx(func(t *sandbox.CardTransaction) { t.BookingStatus = "BOOKED" })},
		{"card transaction transactionDate", "[1].transactionDate", cardTx(func(t *sandbox.CardTransaction) { t.TransactionDate = "2026-3-1" })},
		{"card transaction bookingDate", "[1].bookingDate", cardTx(func(t *sandbox.CardTransaction) { t.BookingDate = "i går" })},
		{"card transaction details with an emoji", "[1].transactionDetails", cardTx(func(t *sandbox.CardTransaction) {
			t.TransactionDetails = "Kafé \u2615"
		})},
		{"card transaction details of 141 characters", "[1].transactionDetails", cardTx(func(t *sandbox.CardTransaction) { t.TransactionDetails = long(141) })},

		// Agreements.
		{"nil agreement", "body", func(ctx context.Context, s *sandbox.Service) error { _, err := s.CreateAgreement(ctx, nil); return err }},
		{"agreement without owner", "owner", agreement(func(a *sandbox.NewAgreement) { a.Owner = "" })},
		{"agreement owner with an emoji", "owner", agreement(func(a *sandbox.NewAgreement) { a.Owner = "912345688\u2705" })},
		{"agreement without name", "name", agreement(func(a *sandbox.NewAgreement) { a.Name = "" })},
		{"agreement name with an emoji", "name", agreement(func(a *sandbox.NewAgreement) { a.Name = "Prosjekt \u2705" })},
		{"agreement name of 71 characters", "name", agreement(func(a *sandbox.NewAgreement) { a.Name = long(71) })},
		{"engagement without customer", "engagements[0].customer", agreement(func(a *sandbox.NewAgreement) { a.Engagements[0].Customer = "" })},
		{"engagement without account", "engagements[0].account", agreement(func(a *sandbox.NewAgreement) { a.Engagements[0].Account = sandbox.AccountRef{} })},
		{"engagement account iban with an emoji", "engagements[0].account.iban", agreement(func(a *sandbox.NewAgreement) {
			a.Engagements[0].Account.IBAN = pdIBAN + "\u2705"
		})},
		{"engagement without roles", "engagements[0].roles", agreement(func(a *sandbox.NewAgreement) { a.Engagements[0].Roles = nil })},
		{"engagement with an empty role", "engagements[0].roles[1]", agreement(func(a *sandbox.NewAgreement) { a.Engagements[0].Roles = []string{sandbox.RoleView, ""} })},
		{"engagement role with an emoji", "engagements[0].roles[0]", agreement(func(a *sandbox.NewAgreement) { a.Engagements[0].Roles = []string{"VIEW\u2705"} })},
	}
}

// Every input a local check refuses gives a [*client.ValidationError]
// (errors.Is client.ErrValidation) naming the JSON field, its message
// starts with "sandbox: " and shows no customer number, name or account
// number, and no request reaches the bank (the emulator behind a
// counting transport).
func TestBadInputIsValidationErrorAndSendsNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range badInputs() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sb, _, ct := countingEnv(t)
			err := tt.call(t.Context(), sb)
			require.Error(t, err)
			assert.ErrorIs(t, err, client.ErrValidation)
			assert.ErrorIs(t, err, client.ErrNotSent, "the client refused it")
			var ve *client.ValidationError
			require.True(t, errors.As(err, &ve), "%T %v", err, err)
			assert.Equal(t, tt.field, ve.Field)
			assert.NotEmpty(t, ve.Reason)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "sandbox."), msg)
			for _, pd := range []string{pdNumber, pdNumber[:10], "1303931995x", pdName, pdBBAN, pdBBAN[:10], pdIBAN, "Konto", "Husleie", "Kafé", "Prosjekt", "912345688"} {
				assert.NotContains(t, msg, pd, "personal data in the message")
			}
			assert.Zero(t, ct.n.Load(), "a request reached the bank")
		})
	}
}

// The emoji rule the Service applies is the bank's: the emulator answers
// the same bodies, sent past the Service, with 400 FORMAT_ERROR, and the
// Service sends the same bodies without the offending character.
func TestEmojiRuleMatchesTheBank(t *testing.T) {
	t.Parallel()
	sb, c, ct := countingEnv(t)
	ctx := t.Context()
	for _, tt := range []struct {
		name, path string
		body       any
	}{
		{"customer", "/v1/sandbox/customers", &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Per \u2705"}},
		{"account", "/v1/sandbox/accounts", &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Konto \u2705"}},
		{"card account", "/v1/sandbox/card-accounts", &sandbox.NewCardAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Kort \U0001F600"}},
	} {
		_, err := c.Do(ctx, client.Operation{Name: "raw " + tt.name, Method: http.MethodPost, Path: tt.path, Body: tt.body}, nil)
		var ce *client.Error
		require.True(t, errors.As(err, &ce), "%s: %v", tt.name, err)
		assert.Equal(t, http.StatusBadRequest, ce.StatusCode, tt.name)
		assert.True(t, ce.HasCode("FORMAT_ERROR"), tt.name)
	}
	sent := ct.n.Load()
	_, err := sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Per \u2705"})
	assert.ErrorIs(t, err, client.ErrValidation)
	_, err = sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Konto \u2705"})
	assert.ErrorIs(t, err, client.ErrValidation)
	assert.Equal(t, sent, ct.n.Load(), "refused locally, nothing sent")

	_, err = sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Per Åsmund Ødegård"})
	require.NoError(t, err, "Norwegian letters pass")
	acc, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Konto €§"})
	require.NoError(t, err, "BMP symbols that are not pictographs pass")
	assert.Equal(t, "Konto €§", acc.Name)
	latin1, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK", Name: "Acme® AS ©"})
	require.NoError(t, err, "ISO 8859-1 passes the SDK and the emulator")
	assert.Equal(t, "Acme® AS ©", latin1.Name)
	require.NoError(t, sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{{
		TransactionAmount: sandbox.Amount{Amount: "-1", Currency: "NOK"}, CreditorName: "Café Ærlig", RemittanceInformationUnstructured: "Kaffe og vaffel"}}))
}
