package sandbox_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

var defaults = []string{emulator.CustomerKari, emulator.CustomerOla, emulator.CustomerFjordlys, emulator.CustomerTestfirma}

type env struct {
	bank *emulator.Server
	c    *client.Client
	sb   *sandbox.Service
	ais  *accounts.Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	bank := testtpp.Server(t)
	c := testtpp.NewClient(t, bank, "Sandbox test TPP")
	sb, err := sandbox.New(c)
	require.NoError(t, err)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	return &env{bank: bank, c: c, sb: sb, ais: ais}
}

func numbers(cs []sandbox.Customer) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.CustomerNumber)
	}
	return out
}

// session runs an SCA for customer (and agreement, for a corporate one)
// and returns the options of a call in the new session.
func (e *env) session(t *testing.T, customer, agreementID string) client.RequestOption {
	t.Helper()
	ctx := t.Context()
	flow, err := sca.NewFlow("https://tpp.example/psd2/callback")
	require.NoError(t, err)
	pending, ro, err := flow.Start("test")
	require.NoError(t, err)
	consent, err := e.ais.StartConsent(ctx, ro)
	require.NoError(t, err)
	require.NotEmpty(t, consent.SCARedirect())
	cb, err := e.bank.Control().AuthorizeCorporate(ctx, consent.SCARedirect(), customer, agreementID)
	require.NoError(t, err)
	s, err := flow.ParseCallback(pending, cb.String())
	require.NoError(t, err)
	return client.Combine(s.RequestOptions(&client.PSU{IPAddress: "198.51.100.7"}), client.WithRedirectURI(flow.RedirectURI()))
}

func TestInitializeRestoresTheFourDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	_, err := e.sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "01017012345", CustomerType: client.Private, CustomerName: "Extra Person"})
	require.NoError(t, err)
	before, err := e.sb.Customers(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, before, 5)

	require.NoError(t, e.sb.Initialize(ctx))
	got, err := e.sb.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true, WithAgreements: true})
	require.NoError(t, err)
	assert.ElementsMatch(t, defaults, numbers(got))
	for _, c := range got {
		switch c.CustomerType {
		case client.Private:
			assert.Len(t, c.Accounts, 2, c.CustomerName)
			assert.Len(t, c.CardAccounts, 1, c.CustomerName)
		case client.Corporate:
			assert.Len(t, c.Accounts, 2, c.CustomerName)
			assert.NotEmpty(t, c.Agreements, c.CustomerName)
		default:
			t.Errorf("customer type %q", c.CustomerType)
		}
		assert.NotEmpty(t, c.Links.Href(client.LinkSelf))
	}

	bare, err := e.sb.Customers(ctx, &sandbox.CustomersQuery{})
	require.NoError(t, err)
	assert.ElementsMatch(t, defaults, numbers(bare))
	for _, c := range bare {
		assert.Empty(t, c.Accounts, "withAccounts=false leaves accounts out")
	}
}

func TestMockDataReadBackThroughAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	const number = "01017012345"
	cust, err := e.sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: number, CustomerType: client.Private, CustomerName: "Per Testesen"})
	require.NoError(t, err)
	assert.Equal(t, number, cust.CustomerNumber)
	acc, err := e.sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerID: cust.CustomerID, Currency: "NOK", Name: "Lønnskonto", Balance: "1000.00"})
	require.NoError(t, err)
	require.NotEmpty(t, acc.ResourceID)
	require.Len(t, acc.BBAN, 11)
	day := time.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	require.NoError(t, e.sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{{
		BookingDate: day, ValueDate: day, TransactionAmount: sandbox.Amount{Amount: "-250.50", Currency: "NOK"},
		CreditorName: "Rema 1000", RemittanceInformationUnstructured: "Matvarer",
	}}))
	card, err := e.sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerNumber: number, Currency: "NOK", CreditLimit: "20000"})
	require.NoError(t, err)
	require.NoError(t, e.sb.CreateCardTransactions(ctx, card.ResourceID, []sandbox.CardTransaction{{
		TransactionDate: day, TransactionAmount: sandbox.Amount{Amount: "-99.00", Currency: "NOK"}, TransactionDetails: "Kiosk"}}))

	listed, err := e.sb.Customer(ctx, cust.CustomerID)
	require.NoError(t, err)
	assert.Equal(t, []string{acc.ResourceID}, listed.Accounts)
	assert.Equal(t, []string{card.ResourceID}, listed.CardAccounts)

	// The PSU logs in with the customer number and the TPP reads the data.
	ro := e.session(t, number, "")
	svc := e.ais
	accs, err := svc.List(ctx, nil, ro)
	require.NoError(t, err)
	require.Len(t, accs, 1)
	assert.Equal(t, acc.ResourceID, accs[0].ResourceID)
	assert.Equal(t, "Lønnskonto", accs[0].Name)
	assert.Equal(t, acc.BBAN, accs[0].BBAN)

	page, err := svc.Transactions(ctx, acc.ResourceID, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, ro)
	require.NoError(t, err)
	require.Len(t, page.Booked, 1)
	tx := page.Booked[0]
	assert.Equal(t, "-250.50 NOK", tx.TransactionAmount.String())
	assert.Equal(t, "Rema 1000", tx.CreditorName)
	assert.Equal(t, "Matvarer", tx.RemittanceInformationUnstructured)
	assert.Equal(t, day, tx.BookingDate.String())

	cards, err := svc.CardAccounts(ctx, ro)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, card.ResourceID, cards[0].ResourceID)
}

func TestDeleteCustomer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	all, err := e.sb.Customers(ctx, nil)
	require.NoError(t, err)
	var ola sandbox.Customer
	for _, c := range all {
		if c.CustomerNumber == emulator.CustomerOla {
			ola = c
		}
	}
	require.NotEmpty(t, ola.CustomerID)
	require.NoError(t, e.sb.DeleteCustomer(ctx, ola.CustomerID))
	left, err := e.sb.Customers(ctx, nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{emulator.CustomerKari, emulator.CustomerFjordlys, emulator.CustomerTestfirma}, numbers(left))

	_, err = e.sb.Customer(ctx, ola.CustomerID)
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusNotFound, ce.StatusCode)
	err = e.sb.DeleteCustomer(ctx, ola.CustomerID)
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, http.StatusNotFound, ce.StatusCode)
}

func TestCreateAgreementGrantsAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	acc, err := e.sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerFjordlys, Currency: "NOK", Name: "Prosjektkonto"})
	require.NoError(t, err)
	ag, err := e.sb.CreateAgreement(ctx, &sandbox.NewAgreement{Owner: emulator.CustomerFjordlys, Name: "Prosjekt", Engagements: []sandbox.Engagement{
		{Customer: emulator.CustomerFjordlys, Account: sandbox.AccountRef{IBAN: acc.IBAN}, Roles: []string{sandbox.RoleView, sandbox.RoleRegister}}}})
	require.NoError(t, err)
	assert.Equal(t, "Prosjekt", ag.Name)
	assert.Len(t, ag.Engagements, 1)

	all, err := e.sb.Customers(ctx, &sandbox.CustomersQuery{WithAgreements: true})
	require.NoError(t, err)
	var ids []string
	for _, c := range all {
		if c.CustomerNumber == emulator.CustomerFjordlys {
			for _, a := range c.Agreements {
				ids = append(ids, a.ID)
			}
		}
	}
	assert.Contains(t, ids, ag.ID)

	// The corporate PSU choosing the new agreement sees its one account.
	ro := e.session(t, emulator.CustomerFjordlys, ag.ID)
	accs, err := e.ais.List(ctx, nil, ro)
	require.NoError(t, err)
	require.Len(t, accs, 1)
	assert.Equal(t, acc.ResourceID, accs[0].ResourceID)

	// An engagement of another customer's account is refused by the bank.
	_, err = e.sb.CreateAgreement(ctx, &sandbox.NewAgreement{Owner: emulator.CustomerTestfirma, Name: "Feil", Engagements: []sandbox.Engagement{
		{Customer: emulator.CustomerTestfirma, Account: sandbox.AccountRef{IBAN: acc.IBAN}, Roles: []string{sandbox.RoleView}}}})
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
}

func TestMockTransactionWithForeignDebtorRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	acc, err := e.sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK"})
	require.NoError(t, err)
	err = e.sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{{
		TransactionAmount: sandbox.Amount{Amount: "-10", Currency: "NOK"}, DebtorAccount: &sandbox.AccountRef{BBAN: "12345678903"}}})
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode, "docs/interface.md section 4.5: another account as debtor is an error")
}
