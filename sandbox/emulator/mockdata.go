package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

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
	p := "/v1/sandbox/agreements/" + ag.mockID
	return agreementJSON{
		ID: ag.mockID, Name: ag.name, Engagements: slices.Clone(ag.accounts),
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

// reservedIDs are the customer numbers and BBANs of a bank's default
// data, which created customers and accounts may not take (see
// resetSandboxLocked): bank.reserved.
type reservedIDs struct{ numbers, bbans map[string]bool }

// reservedIDs computes d's reserved numbers and BBANs.
func (d dataSpec) reservedIDs() reservedIDs {
	st := newDefaultStore(time.Unix(0, 0).UTC(), d)
	r := reservedIDs{map[string]bool{}, map[string]bool{}}
	for cu := range st.allCustomers() {
		r.numbers[cu.number] = true
	}
	for _, a := range st.accounts {
		r.bbans[a.bban] = true
	}
	return r
}

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
	if err := c.decodeMock(&in); err != nil {
		return err
	}
	cu, bad := customerSpec{number: in.CustomerNumber, typ: orDefault(in.CustomerType, contextPrivate),
		name: in.CustomerName}.build(c.tpp.id, &mockCustomerNames)
	if bad != nil {
		return bad.answer("")
	}
	if c.data().customerByNumber(in.CustomerNumber) != nil {
		return newError(http.StatusConflict, "CONFLICT", "A customer with this customerNumber exists.").at("customerNumber")
	}
	if s.reserved().numbers[in.CustomerNumber] {
		return newError(http.StatusConflict, "CONFLICT", "This customerNumber is reserved for a default customer; initialise the sandbox to restore it.").at("customerNumber")
	}
	if err := s.roomForCustomer(c.data()); err != nil {
		return err
	}
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

// flexAmount is an amount as mock data sends it: a string or a number.
type flexAmount json.RawMessage

func (f *flexAmount) UnmarshalJSON(b []byte) error {
	*f = append((*f)[:0], b...)
	return nil
}

// text returns the amount as decimal text for the builders: a JSON
// string's content or a number's digits; empty (0) when absent or null.
// An empty JSON string is not an absent amount: it is returned as written
// (`""`), which no amount parses, so it is refused as not an amount.
func (f flexAmount) text(path string) (string, error) {
	raw := strings.TrimSpace(string(f))
	if raw == "null" {
		return "", nil
	}
	if strings.HasPrefix(raw, `"`) {
		var v string
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return "", errFormat(path, "%s is not an amount.", path)
		}
		if v != "" {
			return v, nil
		}
	}
	return raw, nil
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
	if err := c.decodeMock(&in); err != nil {
		return err
	}
	cu, err := s.owner(c.data(), in.CustomerID, in.CustomerNumber)
	if err != nil {
		return err
	}
	sp := accountSpec{bban: in.BBAN, currency: in.Currency, name: in.Name, product: in.Product,
		cashAccountType: in.CashAccountType}
	if sp.balance, err = in.Balance.text("balance"); err != nil {
		return err
	}
	if sp.creditLine, err = in.CreditLine.text("creditLine"); err != nil {
		return err
	}
	if sp.bban == "" { // a free one
		for sp.bban == "" || c.data().accountByBBAN(sp.bban) != nil || s.reserved().bbans[sp.bban] {
			sp.bban = makeBBAN("9" + randomDigits(9))
		}
	}
	a, bad := sp.build(newInputCheck(c.now, false), &mockAccountNames)
	switch {
	case bad != nil:
		return bad.answer("")
	case c.data().accountByBBAN(a.bban) != nil:
		return newError(http.StatusConflict, "CONFLICT", "An account with this bban exists.").at("bban")
	case s.reserved().bbans[a.bban]:
		return newError(http.StatusConflict, "CONFLICT", "This bban is reserved for a default account; initialise the sandbox to restore it.").at("bban")
	}
	if err := s.roomForAccount(c.data()); err != nil {
		return err
	}
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
	if err := c.decodeMock(&in); err != nil {
		return err
	}
	cu, err := s.owner(c.data(), in.CustomerID, in.CustomerNumber)
	if err != nil {
		return err
	}
	sp := cardSpec{maskedPan: in.MaskedPan, currency: in.Currency, name: in.Name, product: in.Product}
	if sp.creditLimit, err = in.CreditLimit.text("creditLimit"); err != nil {
		return err
	}
	if sp.balance, err = in.Balance.text("balance"); err != nil {
		return err
	}
	k, bad := sp.build(newInputCheck(c.now, false), &mockCardNames)
	if bad != nil {
		return bad.answer("")
	}
	if err := s.roomForAccount(c.data()); err != nil {
		return err
	}
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
// Booked ones move the balance (balanceMoves). 201 with the created transactions.
func (s *Server) createTransactions(c *call) error {
	a := c.data().accountByID(c.pathValue("id"))
	if a == nil {
		return errNotFound("The account is unknown.").at("mockAccountId")
	}
	var in []mockTransaction
	if err := c.decodeMock(&in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errFormat("", "The body must be a non-empty JSON array of transactions.")
	}
	chk := newInputCheck(c.now, false)
	made := make([]transaction, len(in))
	for i := range in {
		p := "[" + strconv.Itoa(i) + "]."
		sp, err := in[i].spec(p)
		if err != nil {
			return err
		}
		var bad *badInput
		if made[i], bad = sp.build(a, chk, &mockTxNames); bad != nil {
			return bad.answer(p)
		}
	}
	if err := s.roomForTransactions(c.data(), len(made)); err != nil {
		return err
	}
	c.data().postTransactions(a, made, balanceMoves)
	out := make([]transactionJSON, len(made))
	for i := range made {
		out[i] = made[i].json()
	}
	return c.reply(http.StatusCreated, out)
}

// spec reads m, an element of the body at path p. The rules of this
// door alone: bookingStatus is booked or pending and transactionAmount
// is present; the rest is checked by txSpec.build (debtorAccount there
// too: docs/interface.md section 4.5).
func (m *mockTransaction) spec(p string) (*txSpec, error) {
	pending, err := mockPending(m.BookingStatus, p)
	if err != nil {
		return nil, err
	}
	if m.TransactionAmount == nil {
		return nil, inputProblem{kind: valueMissing}.answer(p + "transactionAmount")
	}
	sp := &txSpec{pending: pending, currency: m.TransactionAmount.Currency, creditorName: m.CreditorName,
		debtorName: m.DebtorName, creditorAccount: m.CreditorAccount, debtorAccount: m.DebtorAccount,
		bookingDate: dayIn{text: m.BookingDate}, valueDate: dayIn{text: m.ValueDate},
		remittance: m.Remittance, code: m.Code}
	if sp.amount, err = m.TransactionAmount.Amount.text(p + "transactionAmount.amount"); err != nil {
		return nil, err
	}
	return sp, nil
}

// mockPending reads a bookingStatus (at path p): booked (the default) or
// pending.
func mockPending(status, p string) (bool, error) {
	if status != "" && status != "booked" && status != "pending" {
		return false, errFormat(p+"bookingStatus", "bookingStatus must be booked or pending.")
	}
	return status == "pending", nil
}

// mockCardTransaction is one element of the JSON array of POST
// /v1/sandbox/card-accounts/{id}/transactions (shape assumed).
type mockCardTransaction struct {
	BookingStatus      string      `json:"bookingStatus"` // booked (default) or pending
	TransactionDate    string      `json:"transactionDate"`
	BookingDate        string      `json:"bookingDate"`
	TransactionAmount  *mockAmount `json:"transactionAmount"`
	OriginalAmount     *mockAmount `json:"originalAmount"`
	Invoiced           bool        `json:"invoiced"`
	TransactionDetails string      `json:"transactionDetails"`
}

// createCardTransactions adds mock card transactions (a JSON array of
// mockCardTransaction); booked ones move the balance (balanceMoves). 201.
func (s *Server) createCardTransactions(c *call) error {
	k := c.data().cardByID(c.pathValue("id"))
	if k == nil {
		return errNotFound("The card account is unknown.").at("mockAccountId")
	}
	var in []mockCardTransaction
	if err := c.decodeMock(&in); err != nil {
		return err
	}
	if len(in) == 0 {
		return errFormat("", "The body must be a non-empty JSON array of card transactions.")
	}
	chk := newInputCheck(c.now, false)
	made := make([]cardTransaction, len(in))
	for i := range in {
		p := "[" + strconv.Itoa(i) + "]."
		sp, err := in[i].spec(p)
		if err != nil {
			return err
		}
		var bad *badInput
		if made[i], bad = sp.build(k.currency, chk, &mockCardTxNames); bad != nil {
			return bad.answer(p)
		}
	}
	if err := s.roomForTransactions(c.data(), len(made)); err != nil {
		return err
	}
	c.data().postCardTransactions(k, made, balanceMoves)
	out := make([]cardTransactionJSON, len(made))
	for i := range made {
		out[i] = made[i].json()
	}
	return c.reply(http.StatusCreated, out)
}

// spec reads m, an element of the body at path p. The rules of this
// door alone: bookingStatus is booked or pending and transactionAmount
// is present (its currency is not read: the amount is in the card's);
// the rest is checked by cardTxSpec.build.
func (m *mockCardTransaction) spec(p string) (*cardTxSpec, error) {
	pending, err := mockPending(m.BookingStatus, p)
	if err != nil {
		return nil, err
	}
	if m.TransactionAmount == nil {
		return nil, inputProblem{kind: valueMissing}.answer(p + "transactionAmount")
	}
	sp := &cardTxSpec{pending: pending, invoiced: m.Invoiced, details: m.TransactionDetails,
		transactionDate: dayIn{text: m.TransactionDate}, bookingDate: dayIn{text: m.BookingDate}}
	if sp.amount, err = m.TransactionAmount.Amount.text(p + "transactionAmount.amount"); err != nil {
		return nil, err
	}
	if o := m.OriginalAmount; o != nil {
		sp.originalCurrency = o.Currency
		if sp.originalAmount, err = o.Amount.text(p + "originalAmount.amount"); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// createAgreement: body {"owner","name","engagements":[{"customer",
// "account":{"iban"},"roles":["VIEW","REGISTER"]}]} (the platform's shape); owner
// and customer are a customerId or customerNumber. 201 with the agreement;
// its id is the mock-data resource's (agreement.mockID), in the
// platform's enc!! form; the PSU-Corporate-ID of the agreement is a UUID
// that GET /v1/agreements and the SCA callback give.
func (s *Server) createAgreement(c *call) error {
	var in struct {
		Owner       string       `json:"owner"`
		Name        string       `json:"name"`
		Engagements []engagement `json:"engagements"`
	}
	if err := c.decodeMock(&in); err != nil {
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
	ag, bad := agreementSpec{name: in.Name}.build(&mockAgreementNames)
	if bad != nil {
		return bad.answer("")
	}
	if err := s.roomForAgreement(st); err != nil {
		return err
	}
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

// maxAgreementRoles bounds the roles one agreement holds (an
// engagement's roles are added to its agreement's, once each), so that
// engagements posted again and again with new roles cannot grow it
// without end.
const maxAgreementRoles = 32

// engageAll adds the engagements es to ag, or changes nothing and answers
// the first problem (path names the list). A role is a text of 1 to
// maxFreeText characters, and ag holds at most maxAgreementRoles.
func (st *store) engageAll(ag *agreement, es []engagement, path string) error {
	accounts := make([]*account, len(es))
	roles := slices.Clone(ag.roles)
	for i, e := range es {
		p := path + "[" + strconv.Itoa(i) + "]"
		for j, r := range e.Roles {
			rp := p + ".roles[" + strconv.Itoa(j) + "]"
			if bad := checkText(r, 1, maxFreeText); !bad.ok() {
				return bad.answer(rp)
			}
			if slices.Contains(roles, r) {
				continue
			}
			if len(roles) == maxAgreementRoles {
				return errFormat(rp, "An agreement holds at most %d roles.", maxAgreementRoles)
			}
			roles = append(roles, r)
		}
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
		ag.addEngagements([]string{accounts[i].id}, e.Roles)
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
