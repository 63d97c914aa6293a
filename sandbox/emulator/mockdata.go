package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Mock-data operations of the sandbox (docs/interface.md sections 1.4,
// 2.8, 4.4, 4.5; paths as on the platform). They need the shared headers
// only (a signed request), no PSU session.

func (s *Server) registerSandboxRoutes(mux *http.ServeMux) {
	s.handle(mux, "POST /v1/sandbox/initialize", s.initialize)
	s.handleRead(mux, "GET /v1/sandbox/customers", s.listCustomers)
	s.handleRead(mux, "GET /v1/sandbox/customers/{id}", s.getCustomer)
	s.handle(mux, "POST /v1/sandbox/customers", s.createCustomer)
	s.handle(mux, "DELETE /v1/sandbox/customers/{id}", s.deleteCustomer)
	s.handle(mux, "POST /v1/sandbox/accounts", s.createAccount)
	s.handle(mux, "POST /v1/sandbox/card-accounts", s.createCard)
	s.handle(mux, "POST /v1/sandbox/accounts/{id}/transactions", s.createTransactions)
	s.handle(mux, "POST /v1/sandbox/card-accounts/{id}/transactions", s.createCardTransactions)
	s.handle(mux, "POST /v1/sandbox/agreements", s.createAgreement)
	s.registerAgreementRoutes(mux) // mockagreements.go
}

type customerJSON struct {
	CustomerID     string          `json:"customerId"`
	CustomerNumber string          `json:"customerNumber"`
	CustomerType   string          `json:"customerType"`
	CustomerName   string          `json:"customerName"`
	Agreements     []agreementJSON `json:"agreements"`
	Accounts       []string        `json:"accounts"`
	CardAccounts   []string        `json:"cardAccounts"`
	Links          links           `json:"_links"`
}

type agreementJSON struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Engagements []string `json:"engagements"`
	Links       links    `json:"_links"`
}

func (ag *agreement) json() agreementJSON {
	p := "/v1/sandbox/agreements/" + ag.id
	return agreementJSON{
		ID: ag.id, Name: ag.name, Engagements: slices.Clone(ag.accounts),
		Links: links{
			"self":        {Href: p, Verbs: []string{"GET", "DELETE"}},
			"engagements": {Href: p + "/engagements", Verbs: []string{"GET", "POST"}},
		},
	}
}

func (st *store) customerJSON(c *customer, withAccounts, withAgreements bool) customerJSON {
	j := customerJSON{
		CustomerID: c.id, CustomerNumber: c.number, CustomerType: c.typ, CustomerName: c.name,
		Agreements: []agreementJSON{}, Accounts: []string{}, CardAccounts: []string{},
		Links: links{"self": {Href: "/v1/sandbox/customers/" + c.id, Verbs: []string{"GET", "DELETE"}}},
	}
	if withAccounts {
		j.Accounts = append(j.Accounts, c.accounts...)
		j.CardAccounts = append(j.CardAccounts, c.cards...)
	}
	if withAgreements {
		for _, id := range c.agreements {
			if ag := st.agreements[id]; ag != nil {
				j.Agreements = append(j.Agreements, ag.json())
			}
		}
	}
	return j
}

func (st *store) customersJSON(withAccounts, withAgreements bool) []customerJSON {
	out := []customerJSON{}
	for c := range st.allCustomers() {
		out = append(out, st.customerJSON(c, withAccounts, withAgreements))
	}
	return out
}

// initialize resets the sandbox for the calling TPP (docs/interface.md
// section 1.5; see resetSandboxLocked for what stays). Path assumed: POST
// /v1/sandbox/initialize. It answers 200 with the customers as GET
// /v1/sandbox/customers?withAccounts=true&withAgreements=true would.
func (s *Server) initialize(c *call) error {
	s.resetSandboxLocked(c.tpp.id, c.now)
	return c.reply(http.StatusOK, c.data().customersJSON(true, true))
}

// resetSandboxLocked is the sandbox initialisation of the TPP owner (its
// tppIdentity): its sandbox (views.go) is replaced by the default data as
// in a new server, with exactly the default customers (CustomerKari,
// CustomerOla, CustomerFjordlys, CustomerTestfirma), their accounts, card
// accounts, balances, transactions and agreements, a deleted one
// included. What owner created or changed (customers, mock accounts and
// transactions, agreements, booked payments) is gone; the sandboxes of
// other TPPs are not touched. Transaction ids stay unique within the
// TPP's sandbox. The PSU-IDs, sessions and access budgets owner held for
// removed customers and accounts go too.
func (s *Server) resetSandboxLocked(owner string, now time.Time) {
	st := newDefaultStore(now)
	if old := s.storeOf(owner); old != nil {
		st.seq = max(st.seq, old.seq)
	}
	s.stores[owner] = st
	s.forgetRemovedLocked(owner)
}

// reserved holds the customer numbers and BBANs of the default data, which
// created customers and accounts may not take (see resetSandboxLocked).
var reserved = sync.OnceValue(func() struct{ numbers, bbans map[string]bool } {
	st := newDefaultStore(time.Unix(0, 0).UTC())
	r := struct{ numbers, bbans map[string]bool }{map[string]bool{}, map[string]bool{}}
	for cu := range st.allCustomers() {
		r.numbers[cu.number] = true
	}
	for _, a := range st.accounts {
		r.bbans[a.bban] = true
	}
	return r
})

func (s *Server) listCustomers(c *call) error {
	wa, err := boolQuery(c, "withAccounts")
	if err != nil {
		return err
	}
	wg, err := boolQuery(c, "withAgreements")
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, c.data().customersJSON(wa, wg))
}

func (s *Server) getCustomer(c *call) error {
	cu := c.data().customerByID(c.pathValue("id"))
	if cu == nil {
		return errNotFound("The customer is unknown.").at("customerId")
	}
	return c.reply(http.StatusOK, c.data().customerJSON(cu, true, true))
}

// createCustomer: body {"customerNumber","customerType","customerName"}
// (shape assumed); 201 with the customer.
func (s *Server) createCustomer(c *call) error {
	var in struct {
		CustomerNumber string `json:"customerNumber"`
		CustomerType   string `json:"customerType"`
		CustomerName   string `json:"customerName"`
	}
	if err := c.decode(&in); err != nil {
		return err
	}
	if !allDigitsN(in.CustomerNumber, 9, 11) {
		return errFormat("customerNumber", "customerNumber must be 11 digits (national identity number) or 9 digits (organisation number).")
	}
	if in.CustomerType == "" {
		in.CustomerType = contextPrivate
	}
	if in.CustomerType != contextPrivate && in.CustomerType != contextCorporate {
		return errFormat("customerType", "customerType must be PRIVATE or CORPORATE.")
	}
	if err := textField(in.CustomerName, "customerName", 1, 70); err != nil {
		return err
	}
	if c.data().customerByNumber(in.CustomerNumber) != nil {
		return newError(http.StatusConflict, "CONFLICT", "A customer with this customerNumber exists.").at("customerNumber")
	}
	if reserved().numbers[in.CustomerNumber] {
		return newError(http.StatusConflict, "CONFLICT", "This customerNumber is reserved for a default customer; initialise the sandbox to restore it.").at("customerNumber")
	}
	if err := s.roomForCustomer(c.data()); err != nil {
		return err
	}
	cu := newMockCustomer(in.CustomerNumber, in.CustomerType, in.CustomerName, c.tpp.id)
	c.data().addCustomer(cu)
	return c.reply(http.StatusCreated, c.data().customerJSON(cu, true, true))
}

// deleteCustomer removes a customer with its accounts, card accounts and
// agreements: 204.
func (s *Server) deleteCustomer(c *call) error {
	cu := c.data().customerByID(c.pathValue("id"))
	if cu == nil {
		return errNotFound("The customer is unknown.").at("customerId")
	}
	c.data().removeCustomer(cu)
	s.forgetCustomerLocked(c.tpp.id, cu)
	return c.replyEmpty(http.StatusNoContent)
}

// owner finds the customer a mock object belongs to, by customerId or
// customerNumber.
func (s *Server) owner(st *store, id, number string) (*customer, error) {
	var cu *customer
	switch {
	case id != "":
		cu = st.customerByID(id)
	case number != "":
		cu = st.customerByNumber(number)
	default:
		return nil, newError(http.StatusBadRequest, "FORMAT_ERROR", "customerId or customerNumber is required.").at("customerId")
	}
	if cu == nil {
		return nil, errNotFound("The customer is unknown.").at("customerId")
	}
	return cu, nil
}

// flexAmount is an amount as mock data sends it: a string or a number.
type flexAmount json.RawMessage

func (f *flexAmount) UnmarshalJSON(b []byte) error {
	*f = append((*f)[:0], b...)
	return nil
}

// parse returns the value, checked against the currency's minor units.
func (f flexAmount) parse(cur, path string) (decimal.Decimal, error) {
	raw := strings.TrimSpace(string(f))
	if raw == "" || raw == "null" {
		return decimal.Zero, nil
	}
	if strings.HasPrefix(raw, `"`) {
		if err := json.Unmarshal([]byte(raw), &raw); err != nil {
			return decimal.Decimal{}, errFormat(path, "%s is not an amount.", path)
		}
	}
	a, err := money.Parse(raw, cur)
	if err != nil {
		return decimal.Decimal{}, errFormat(path, "%s is not a valid amount in %s.", path, clip(cur))
	}
	return a.Value, nil
}

// createAccount: body {"customerId" or "customerNumber", "bban"
// (optional, generated), "currency" (NOK), "name", "product",
// "cashAccountType", "balance"} (shape assumed); 201 with the account as
// the AIS shows it.
func (s *Server) createAccount(c *call) error {
	var in struct {
		CustomerID      string     `json:"customerId"`
		CustomerNumber  string     `json:"customerNumber"`
		BBAN            string     `json:"bban"`
		Currency        string     `json:"currency"`
		Name            string     `json:"name"`
		Product         string     `json:"product"`
		CashAccountType string     `json:"cashAccountType"`
		Balance         flexAmount `json:"balance"`
		CreditLine      flexAmount `json:"creditLine"`
	}
	if err := c.decode(&in); err != nil {
		return err
	}
	cu, err := s.owner(c.data(), in.CustomerID, in.CustomerNumber)
	if err != nil {
		return err
	}
	sp := accountSpec{bban: in.BBAN, currency: in.Currency, name: in.Name, product: in.Product,
		cashAccountType: in.CashAccountType}.withDefaults()
	if !money.IsCurrency(sp.currency) {
		return errFormat("currency", "currency must be an ISO 4217 code.")
	}
	if err := textField(sp.name, "name", 1, 70); err != nil {
		return err
	}
	if sp.balance, err = in.Balance.parse(sp.currency, "balance"); err != nil {
		return err
	}
	if sp.creditLine, err = in.CreditLine.parse(sp.currency, "creditLine"); err != nil {
		return err
	}
	if sp.bban == "" {
		for sp.bban == "" || c.data().accountByBBAN(sp.bban) != nil || reserved().bbans[sp.bban] {
			sp.bban = makeBBAN("9" + randomDigits(9))
		}
	} else if !rules.ValidNorwegianBBAN(sp.bban) {
		return errFormat("bban", "bban must be 11 digits with a valid MOD11 check digit.")
	} else if c.data().accountByBBAN(sp.bban) != nil {
		return newError(http.StatusConflict, "CONFLICT", "An account with this bban exists.").at("bban")
	} else if reserved().bbans[sp.bban] {
		return newError(http.StatusConflict, "CONFLICT", "This bban is reserved for a default account; initialise the sandbox to restore it.").at("bban")
	}
	if err := s.roomForAccount(c.data()); err != nil {
		return err
	}
	a := sp.build()
	c.data().addAccount(cu, a)
	return c.reply(http.StatusCreated, a.json(true))
}

// createCard: body {"customerId" or "customerNumber", "maskedPan"
// (optional), "name", "product", "currency", "creditLimit", "balance"
// (interimBooked, negative for debt)} (shape assumed); 201.
func (s *Server) createCard(c *call) error {
	var in struct {
		CustomerID     string     `json:"customerId"`
		CustomerNumber string     `json:"customerNumber"`
		MaskedPan      string     `json:"maskedPan"`
		Name           string     `json:"name"`
		Product        string     `json:"product"`
		Currency       string     `json:"currency"`
		CreditLimit    flexAmount `json:"creditLimit"`
		Balance        flexAmount `json:"balance"`
	}
	if err := c.decode(&in); err != nil {
		return err
	}
	cu, err := s.owner(c.data(), in.CustomerID, in.CustomerNumber)
	if err != nil {
		return err
	}
	sp := cardSpec{maskedPan: in.MaskedPan, currency: in.Currency, name: in.Name, product: in.Product}.withDefaults()
	if !money.IsCurrency(sp.currency) {
		return errFormat("currency", "currency must be an ISO 4217 code.")
	}
	if err := textField(sp.maskedPan, "maskedPan", 1, 35); err != nil {
		return err
	}
	if err := textField(sp.name, "name", 1, 70); err != nil {
		return err
	}
	if sp.creditLimit, err = in.CreditLimit.parse(sp.currency, "creditLimit"); err != nil {
		return err
	}
	if sp.balance, err = in.Balance.parse(sp.currency, "balance"); err != nil {
		return err
	}
	if err := s.roomForAccount(c.data()); err != nil {
		return err
	}
	k := sp.build()
	if len(cu.accounts) > 0 {
		if a := c.data().accountByID(cu.accounts[0]); a != nil {
			k.relatedBBAN = a.bban
		}
	}
	c.data().addCard(cu, k)
	return c.reply(http.StatusCreated, k.json())
}

// mockTransaction is one element of the JSON array of POST
// /v1/sandbox/accounts/{id}/transactions (shape assumed: the AIS
// transaction fields plus bookingStatus).
type mockTransaction struct {
	BookingStatus     string      `json:"bookingStatus"` // booked (default) or pending
	BookingDate       string      `json:"bookingDate"`
	ValueDate         string      `json:"valueDate"`
	TransactionAmount *mockAmount `json:"transactionAmount"`
	CreditorName      string      `json:"creditorName"`
	CreditorAccount   *accountRef `json:"creditorAccount"`
	DebtorName        string      `json:"debtorName"`
	DebtorAccount     *accountRef `json:"debtorAccount"`
	Remittance        string      `json:"remittanceInformationUnstructured"`
	Code              string      `json:"proprietaryBankTransactionCode"`
}

type mockAmount struct {
	Amount   flexAmount `json:"amount"`
	Currency string     `json:"currency"`
}

// createTransactions adds mock transactions to an account. A transaction
// whose debtorAccount is another account is refused (docs/interface.md section 4.5).
// Booked ones move the balance. 201 with the created transactions.
func (s *Server) createTransactions(c *call) error {
	a := c.data().accountByID(c.pathValue("id"))
	if a == nil {
		return errNotFound("The account is unknown.").at("mockAccountId")
	}
	var in []mockTransaction
	if err := c.decode(&in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errFormat("", "The body must be a non-empty JSON array of transactions.")
	}
	made := make([]transaction, 0, len(in))
	for i, m := range in {
		p := "[" + strconv.Itoa(i) + "]."
		t, err := s.mockTransaction(a, m, p, c.now)
		if err != nil {
			return err
		}
		made = append(made, t)
	}
	if err := s.roomForTransactions(c.data(), len(made)); err != nil {
		return err
	}
	out := make([]transactionJSON, 0, len(made))
	for _, t := range made {
		if t.booked {
			out = append(out, c.data().book(a, t).json())
		} else {
			out = append(out, c.data().addPending(a, t).json())
		}
	}
	return c.reply(http.StatusCreated, out)
}

func (s *Server) mockTransaction(a *account, m mockTransaction, p string, now time.Time) (transaction, error) {
	t := transaction{booked: m.BookingStatus != "pending", currency: a.currency,
		creditorName: m.CreditorName, debtorName: m.DebtorName, remittance: m.Remittance, code: m.Code}
	if m.BookingStatus != "" && m.BookingStatus != "booked" && m.BookingStatus != "pending" {
		return t, errFormat(p+"bookingStatus", "bookingStatus must be booked or pending.")
	}
	if m.TransactionAmount == nil {
		return t, errFormat(p+"transactionAmount", "transactionAmount is required.")
	}
	if m.TransactionAmount.Currency != "" && m.TransactionAmount.Currency != a.currency {
		return t, errFormat(p+"transactionAmount.currency", "The currency must be the account's (%s).", a.currency)
	}
	v, err := m.TransactionAmount.Amount.parse(a.currency, p+"transactionAmount.amount")
	if err != nil {
		return t, err
	}
	if v.IsZero() {
		return t, errFormat(p+"transactionAmount.amount", "The amount must not be zero.")
	}
	t.amount = v
	t.bookingDate = rules.Today(now)
	if m.BookingDate != "" {
		if t.bookingDate, err = time.Parse(time.DateOnly, m.BookingDate); err != nil {
			return t, errFormat(p+"bookingDate", "bookingDate must be a date YYYY-MM-DD.")
		}
	}
	if m.ValueDate != "" {
		if t.valueDate, err = time.Parse(time.DateOnly, m.ValueDate); err != nil {
			return t, errFormat(p+"valueDate", "valueDate must be a date YYYY-MM-DD.")
		}
	}
	if err := textField(m.Remittance, p+"remittanceInformationUnstructured", 0, 140); err != nil {
		return t, err
	}
	if err := textField(m.CreditorName, p+"creditorName", 0, 70); err != nil {
		return t, err
	}
	if err := textField(m.DebtorName, p+"debtorName", 0, 70); err != nil {
		return t, err
	}
	own := &accountRef{BBAN: a.bban, IBAN: a.iban}
	if d := m.DebtorAccount; d != nil {
		if (d.BBAN != "" && d.BBAN != a.bban) || (d.IBAN != "" && d.IBAN != a.iban) || (d.BBAN == "" && d.IBAN == "") {
			return t, errFormat(p+"debtorAccount", "A mock transaction cannot have another account as debtor.")
		}
	}
	t.debtorAccount, t.creditorAccount = own, m.CreditorAccount
	if v.IsPositive() {
		// Money in: the platform shows the payer, not this account.
		t.debtorAccount, t.creditorAccount = nil, nil
	}
	return t, nil
}

// createCardTransactions adds mock card transactions: a JSON array of
// {"bookingStatus","transactionDate","bookingDate","transactionAmount",
// "originalAmount","invoiced","transactionDetails"} (shape assumed); 201.
func (s *Server) createCardTransactions(c *call) error {
	k := c.data().cardByID(c.pathValue("id"))
	if k == nil {
		return errNotFound("The card account is unknown.").at("mockAccountId")
	}
	var in []struct {
		BookingStatus      string      `json:"bookingStatus"`
		TransactionDate    string      `json:"transactionDate"`
		BookingDate        string      `json:"bookingDate"`
		TransactionAmount  *mockAmount `json:"transactionAmount"`
		OriginalAmount     *mockAmount `json:"originalAmount"`
		Invoiced           bool        `json:"invoiced"`
		TransactionDetails string      `json:"transactionDetails"`
	}
	if err := c.decode(&in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errFormat("", "The body must be a non-empty JSON array of card transactions.")
	}
	made := make([]*cardTransaction, 0, len(in))
	for i, m := range in {
		p := "[" + strconv.Itoa(i) + "]."
		if m.BookingStatus != "" && m.BookingStatus != "booked" && m.BookingStatus != "pending" {
			return errFormat(p+"bookingStatus", "bookingStatus must be booked or pending.")
		}
		if m.TransactionAmount == nil {
			return errFormat(p+"transactionAmount", "transactionAmount is required.")
		}
		v, err := m.TransactionAmount.Amount.parse(k.currency, p+"transactionAmount.amount")
		if err != nil {
			return err
		}
		t := &cardTransaction{id: c.data().nextTxID()[4:], booked: m.BookingStatus != "pending", amount: v,
			currency: k.currency, originalAmount: v, originalCur: k.currency, invoiced: m.Invoiced,
			details: m.TransactionDetails, transactionDate: rules.Today(c.now)}
		if m.OriginalAmount != nil && m.OriginalAmount.Currency != "" {
			if !money.IsCurrency(m.OriginalAmount.Currency) {
				return errFormat(p+"originalAmount.currency", "currency must be an ISO 4217 code.")
			}
			ov, err := m.OriginalAmount.Amount.parse(m.OriginalAmount.Currency, p+"originalAmount.amount")
			if err != nil {
				return err
			}
			t.originalAmount, t.originalCur = ov, m.OriginalAmount.Currency
		}
		if m.TransactionDate != "" {
			if t.transactionDate, err = time.Parse(time.DateOnly, m.TransactionDate); err != nil {
				return errFormat(p+"transactionDate", "transactionDate must be a date YYYY-MM-DD.")
			}
		}
		if t.booked {
			t.bookingDate = t.transactionDate
			if m.BookingDate != "" {
				if t.bookingDate, err = time.Parse(time.DateOnly, m.BookingDate); err != nil {
					return errFormat(p+"bookingDate", "bookingDate must be a date YYYY-MM-DD.")
				}
			}
		}
		if err := textField(m.TransactionDetails, p+"transactionDetails", 0, 140); err != nil {
			return err
		}
		made = append(made, t)
	}
	if err := s.roomForTransactions(c.data(), len(made)); err != nil {
		return err
	}
	out := make([]cardTransactionJSON, 0, len(made))
	for _, t := range made {
		c.data().bookCard(k, t)
		out = append(out, t.json())
	}
	return c.reply(http.StatusCreated, out)
}

// createAgreement: body {"owner","name","engagements":[{"customer",
// "account":{"iban"},"roles":["VIEW","REGISTER"]}]} (the platform's shape); owner
// and customer are a customerId or customerNumber. 201 with the agreement;
// its id is a UUID usable as PSU-Corporate-ID.
func (s *Server) createAgreement(c *call) error {
	var in struct {
		Owner       string       `json:"owner"`
		Name        string       `json:"name"`
		Engagements []engagement `json:"engagements"`
	}
	if err := c.decode(&in); err != nil {
		return err
	}
	st := c.data()
	owner := st.customerByID(in.Owner)
	if owner == nil {
		owner = st.customerByNumber(in.Owner)
	}
	if owner == nil {
		return errNotFound("The owner is unknown.").at("owner")
	}
	if err := textField(in.Name, "name", 1, 70); err != nil {
		return err
	}
	if err := s.roomForAgreement(st); err != nil {
		return err
	}
	ag := &agreement{id: newUUID(), name: in.Name}
	if err := st.engageAll(ag, in.Engagements, "engagements"); err != nil {
		return err
	}
	st.addAgreement(owner, ag)
	return c.reply(http.StatusCreated, ag.json())
}

// engagement is one engagement of a mock agreement: a customer's account
// and the roles the agreement has on it.
type engagement struct {
	Customer string     `json:"customer"`
	Account  accountRef `json:"account"`
	Roles    []string   `json:"roles"`
}

// engageAll adds the engagements es to ag, or changes nothing and answers
// the first problem (path names the list).
func (st *store) engageAll(ag *agreement, es []engagement, path string) error {
	accounts := make([]*account, len(es))
	for i, e := range es {
		p := path + "[" + strconv.Itoa(i) + "]"
		var a *account
		switch {
		case e.Account.IBAN != "":
			a = st.accountByIBAN(e.Account.IBAN)
		case e.Account.BBAN != "":
			a = st.accountByBBAN(e.Account.BBAN)
		}
		if a == nil {
			return errNotFound("The account of %s is unknown.", p).at(p + ".account")
		}
		if cu := st.customerByID(a.owner); e.Customer != "" && cu != nil && e.Customer != cu.id && e.Customer != cu.number {
			return errFormat(p+".customer", "The account does not belong to this customer.")
		}
		accounts[i] = a
	}
	for i, e := range es {
		ag.engage(accounts[i].id)
		for _, r := range e.Roles {
			if !slices.Contains(ag.roles, r) {
				ag.roles = append(ag.roles, r)
			}
		}
	}
	return nil
}

// textField checks a text's length in characters.
func textField(v, path string, minLen, maxLen int) error {
	if e := optionalText(&v, path, minLen, maxLen); e != nil {
		return e
	}
	return nil
}

func allDigitsN(s string, lengths ...int) bool {
	return slices.Contains(lengths, len(s)) && rules.AllDigits(s)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
