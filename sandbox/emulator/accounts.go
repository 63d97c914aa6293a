package emulator

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Account information service (docs/interface.md section 4.5, docs/interface.md section 10 "Paths" and
// "JSON shapes"; testdata/platform).

func (s *Server) registerAccountRoutes(mux *http.ServeMux) {
	s.handle(mux, "POST /v1/bank-offered-consents", s.createConsent)
	s.handle(mux, "POST /v1/consents", s.createConsent)
	// The GET handlers only read the state (and the access budget, which
	// has its own locks): they run under the read lock (data.go).
	s.handleRead(mux, "GET /v1/user", s.getUser)
	s.handleRead(mux, "GET /v1/accounts", s.listAccounts)
	s.handleRead(mux, "GET /v1/accounts/{id}", s.getAccount)
	s.handleRead(mux, "GET /v1/accounts/{id}/balances", s.getBalances)
	s.handleRead(mux, "GET /v1/accounts/{id}/transactions", s.getTransactions)
	s.handleRead(mux, "GET /v1/accounts/{id}/transactions/{transactionId}", s.getTransactionDetails)
	s.handleRead(mux, "GET /v1/card-accounts", s.listCards)
	s.handleRead(mux, "GET /v1/card-accounts/{id}", s.getCard)
	s.handleRead(mux, "GET /v1/card-accounts/{id}/balances", s.getCardBalances)
	s.handleRead(mux, "GET /v1/card-accounts/{id}/transactions", s.getCardTransactions)
	s.handleRead(mux, "GET /v1/agreements", s.listAgreements)
}

// amount is a money object of the answers.
func amount(v decimal.Decimal, cur string) money.Amount { return money.Amount{Value: v, Currency: cur} }

// createConsent answers POST /v1/bank-offered-consents (and the deprecated
// /v1/consents, whose body is ignored): 201 with only _links.scaRedirect.
func (s *Server) createConsent(c *call) error {
	href, err := c.startSCA(scaConsent, nil)
	if err != nil {
		return err
	}
	return c.reply(http.StatusCreated, struct {
		Links links `json:"_links"`
	}{links{"scaRedirect": getLink(href)}})
}

// getUser answers GET /v1/user, which starts SCA for PISPs (docs/interface.md
// 4.5, 5.10): 401 with a scaRedirect without a session less than an hour
// old, else 200 with the PSU's ids (shape assumed, see the package doc).
func (s *Server) getUser(c *call) error {
	sess, err := c.session(needFreshSCA)
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		PSUID          string `json:"psuId"`
		PSUCorporateID string `json:"psuCorporateId,omitempty"`
		Context        string `json:"context"`
	}{sess.psuID, sess.corporateID, sess.customer.typ})
}

type accountJSON struct {
	ResourceID      string        `json:"resourceId"`
	BBAN            string        `json:"bban"`
	IBAN            string        `json:"iban"`
	Currency        string        `json:"currency"`
	Name            string        `json:"name"`
	Product         string        `json:"product"`
	CashAccountType string        `json:"cashAccountType"`
	BIC             string        `json:"bic"`
	Balances        []balanceJSON `json:"balances,omitempty"`
	Links           links         `json:"_links"`
}

type balanceJSON struct {
	BalanceAmount money.Amount `json:"balanceAmount"`
	BalanceType   string       `json:"balanceType"`
}

func accountPath(a *account) string { return "/v1/accounts/" + a.id }

func (a *account) json(withBalance bool) accountJSON {
	p := accountPath(a)
	j := accountJSON{
		ResourceID: a.id, BBAN: a.bban, IBAN: a.iban, Currency: a.currency, Name: a.name,
		Product: a.product, CashAccountType: a.cashAccountType, BIC: a.bic,
		Links: links{
			"self":         getLink(p),
			"balances":     getLink(p + "/balances"),
			"transactions": getLink(p + "/transactions?bookingStatus=both"),
		},
	}
	if withBalance {
		j.Balances = a.balances()
	}
	return j
}

func (a *account) balances() []balanceJSON {
	return []balanceJSON{
		{amount(a.booked, a.currency), "closingBooked"},
		{amount(a.available(), a.currency), "expected"},
	}
}

func (s *Server) listAccounts(c *call) error {
	sess, err := c.aisSession(true)
	if err != nil {
		return err
	}
	withBalance, err := boolQuery(c, "withBalance")
	if err != nil {
		return err
	}
	out := []accountJSON{}
	for _, a := range c.data().visibleAccounts(sess.customer, sess.corporateID) {
		out = append(out, a.json(withBalance))
	}
	return c.reply(http.StatusOK, struct {
		Accounts []accountJSON `json:"accounts"`
	}{out})
}

// sessionAccount checks the session and finds the path's account among
// those the session may see (404 RESOURCE_UNKNOWN otherwise).
func (s *Server) sessionAccount(c *call) (*account, *session, error) {
	sess, err := c.aisSession(false)
	if err != nil {
		return nil, nil, err
	}
	if a := c.data().visibleAccount(sess.customer, sess.corporateID, c.pathValue("id")); a != nil {
		return a, sess, nil
	}
	return nil, nil, errNotFound("The account is unknown or not covered by the consent.").at("accountId")
}

func (s *Server) getAccount(c *call) error {
	a, _, err := s.sessionAccount(c)
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		Account accountJSON `json:"account"`
	}{a.json(false)})
}

func (s *Server) getBalances(c *call) error {
	a, _, err := s.sessionAccount(c)
	if err != nil {
		return err
	}
	if err := c.budget(a.id, "balances"); err != nil {
		return err
	}
	type ref struct {
		BBAN     string `json:"bban"`
		IBAN     string `json:"iban"`
		Currency string `json:"currency"`
	}
	return c.reply(http.StatusOK, struct {
		Account  ref           `json:"account"`
		Balances []balanceJSON `json:"balances"`
		Links    links         `json:"_links"`
	}{Account: ref{a.bban, a.iban, a.currency}, Balances: a.balances(),
		Links: links{"self": getLink(accountPath(a) + "/balances")}})
}

// pageQuery is the checked query of a transactions call (rules.ParsePage).
type pageQuery struct{ rules.Page }

// parsePage reads bookingStatus, dateFrom, dateTo, limit and offset
// (rules.ParsePage).
func parsePage(c *call) (*pageQuery, error) {
	p, v := rules.ParsePage(c.r.URL.Query())
	if v != nil {
		return nil, violation(v)
	}
	return &pageQuery{p}, nil
}

// href renders the query of a page link at offset, in the platform's order.
func (p *pageQuery) href(base string, offset int) string {
	v := "?limit=" + strconv.Itoa(p.Limit) + "&offset=" + strconv.Itoa(offset)
	if p.RawFrom != "" {
		v += "&dateFrom=" + url.QueryEscape(p.RawFrom)
	}
	if p.RawTo != "" {
		v += "&dateTo=" + url.QueryEscape(p.RawTo)
	}
	return base + v + "&bookingStatus=" + url.QueryEscape(p.RawStatus)
}

// in reports whether day d is inside the query's dates and the history
// limit (floor).
func (p *pageQuery) in(d, floor time.Time) bool {
	if !floor.IsZero() && d.Before(floor) {
		return false
	}
	if !p.From.IsZero() && d.Before(p.From) {
		return false
	}
	return p.To.IsZero() || !d.After(p.To)
}

// window returns items[offset:offset+limit] and whether more follow.
func window[T any](items []T, p *pageQuery) ([]T, bool) {
	if p.Offset >= len(items) {
		return []T{}, false
	}
	end := min(len(items), p.Offset+p.Limit)
	return items[p.Offset:end], end < len(items)
}

// historyFloor is the oldest day a call may read: 90 days back without the
// PSU present or when the session's SCA is older than an hour (docs/interface.md section 10
// session model); no limit otherwise.
func historyFloor(c *call, sess *session) time.Time {
	if c.psuPresent() && sess.fresh {
		return time.Time{}
	}
	return rules.Today(c.now).Add(-historyLimit)
}

type transactionJSON struct {
	TransactionID                          string       `json:"transactionId,omitempty"`
	EndToEndID                             string       `json:"endToEndId,omitempty"`
	BookingDate                            string       `json:"bookingDate,omitempty"`
	ValueDate                              string       `json:"valueDate,omitempty"`
	TransactionAmount                      money.Amount `json:"transactionAmount"`
	CreditorName                           string       `json:"creditorName,omitempty"`
	CreditorAccount                        *accountRef  `json:"creditorAccount,omitempty"`
	DebtorName                             string       `json:"debtorName,omitempty"`
	DebtorAccount                          *accountRef  `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured      string       `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray []string     `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructured        string       `json:"remittanceInformationStructured,omitempty"`
	ProprietaryBankTransactionCode         string       `json:"proprietaryBankTransactionCode,omitempty"`
}

func (t *transaction) json() transactionJSON {
	j := transactionJSON{
		TransactionAmount: amount(t.amount, t.currency),
		CreditorName:      t.creditorName, CreditorAccount: t.creditorAccount,
		DebtorName: t.debtorName, DebtorAccount: t.debtorAccount,
		RemittanceInformationUnstructured: t.remittance,
		RemittanceInformationStructured:   t.structured,
		EndToEndID:                        t.endToEndID,
		ProprietaryBankTransactionCode:    t.code,
	}
	if t.remittance != "" {
		j.RemittanceInformationUnstructuredArray = []string{t.remittance}
	}
	if !t.bookingDate.IsZero() {
		j.BookingDate = t.bookingDate.Format(time.DateOnly)
	}
	if t.booked {
		j.TransactionID = t.id
		if !t.valueDate.IsZero() {
			j.ValueDate = t.valueDate.Format(time.DateOnly)
		}
	}
	return j
}

// newestFirst orders by booking date, newest first, then by id.
func newestFirst[T any](items []T, date func(T) time.Time) {
	slices.SortStableFunc(items, func(a, b T) int { return date(b).Compare(date(a)) })
}

func (s *Server) getTransactions(c *call) error {
	a, sess, err := s.sessionAccount(c)
	if err != nil {
		return err
	}
	p, err := parsePage(c)
	if err != nil {
		return err
	}
	if err := c.onlineSCARule(sess); err != nil { // scenario.go
		return err
	}
	if err := c.budget(a.id, "transactions"); err != nil {
		return err
	}
	floor := historyFloor(c, sess)
	var booked, pending []*transaction
	for _, t := range a.transactions {
		switch {
		case t.booked && p.in(t.bookingDate, floor):
			booked = append(booked, t)
		case !t.booked && s.unfilteredPending && p.Status != "booked":
			pending = append(pending, t) // known issue: no date filter on pending
		case !t.booked && p.in(t.bookingDate, floor):
			pending = append(pending, t)
		}
	}
	date := func(t *transaction) time.Time { return t.bookingDate }
	newestFirst(booked, date)
	newestFirst(pending, date)

	base := accountPath(a) + "/transactions"
	page := struct {
		Booked  []transactionJSON `json:"booked"`
		Pending []transactionJSON `json:"pending"`
		Links   links             `json:"_links"`
	}{Booked: []transactionJSON{}, Pending: []transactionJSON{}, Links: links{"self": getLink(p.href(base, p.Offset))}}
	more := false
	if p.Status != "pending" {
		var w []*transaction
		w, more = window(booked, p)
		for _, t := range w {
			page.Booked = append(page.Booked, t.json())
		}
	}
	if p.Status != "booked" {
		if s.unfilteredPending {
			// Known issue (docs/interface.md section 8, production only):
			// all pending transactions, with no regard to dateFrom, dateTo
			// and limit. The section says nothing of offset, so every
			// page, the first and those its next links lead to, carries
			// the whole list.
			for _, t := range pending {
				page.Pending = append(page.Pending, t.json())
			}
		} else {
			w, m := window(pending, p)
			more = more || m
			for _, t := range w {
				page.Pending = append(page.Pending, t.json())
			}
		}
	}
	if more {
		page.Links["next"] = getLink(p.href(base, p.Offset+p.Limit))
	}
	return c.reply(http.StatusOK, struct {
		Account      accountRef `json:"account"`
		Transactions any        `json:"transactions"`
	}{accountRef{BBAN: a.bban, IBAN: a.iban}, page})
}

// getTransactionDetails answers GET
// /v1/accounts/{id}/transactions/{transactionId} with the Berlin Group
// shape {"transactionsDetails": {...}}. Only booked entries have a
// transactionId. Without the PSU present the call counts against the
// transactions list's budget of 4 calls per account per 24 hours (the
// SDK's accounts.Service.TransactionDetails counts it the same way), and
// reads only the last 90 days like the list; an entry outside them is 404
// RESOURCE_UNKNOWN, as is an unknown id.
func (s *Server) getTransactionDetails(c *call) error {
	a, sess, err := s.sessionAccount(c)
	if err != nil {
		return err
	}
	if err := c.onlineSCARule(sess); err != nil { // scenario.go
		return err
	}
	if err := c.budget(a.id, "transactions"); err != nil { // counted with the list, as the SDK counts it
		return err
	}
	id, floor := c.pathValue("transactionId"), historyFloor(c, sess)
	for _, t := range a.transactions {
		if t.booked && t.id == id && (floor.IsZero() || !t.bookingDate.Before(floor)) {
			return c.reply(http.StatusOK, struct {
				Details transactionJSON `json:"transactionsDetails"`
			}{t.json()})
		}
	}
	return newError(http.StatusNotFound, "RESOURCE_UNKNOWN", "The transaction is unknown for this account.").at("transactionId")
}

// Card accounts.

type cardJSON struct {
	ResourceID  string        `json:"resourceId"`
	MaskedPan   string        `json:"maskedPan"`
	Currency    string        `json:"currency"`
	Name        string        `json:"name"`
	Product     string        `json:"product"`
	CreditLimit money.Amount  `json:"creditLimit"`
	Balances    []balanceJSON `json:"balances"`
	// RelatedAccount is the reference to pay from the card account with
	// (NDCT debtorAccount.other.identification, docs/interface.md
	// section 2.3a). The card account details carry it; the list does
	// not, as the platform's list (testdata/platform/card-accounts.json)
	// has none.
	RelatedAccount string `json:"relatedAccount,omitempty"`
	Links          links  `json:"_links"`
}

func cardPath(k *cardAccount) string { return "/v1/card-accounts/" + k.id }

// forwardAvailable is the credit left: the limit plus the (negative)
// booked balance plus pending card transactions.
func (k *cardAccount) forwardAvailable() decimal.Decimal {
	v := k.creditLimit.Add(k.booked)
	for _, t := range k.transactions {
		if !t.booked {
			v = v.Add(t.amount)
		}
	}
	return v
}

func (k *cardAccount) json() cardJSON {
	p := cardPath(k)
	return cardJSON{
		ResourceID: k.id, MaskedPan: k.maskedPan, Currency: k.currency, Name: k.name, Product: k.product,
		CreditLimit:    amount(k.creditLimit, k.currency),
		Balances:       []balanceJSON{{amount(k.forwardAvailable(), k.currency), "forwardAvailable"}},
		RelatedAccount: k.relatedAccount(),
		Links: links{
			"self":         getLink(p),
			"balances":     getLink(p + "/balances"),
			"transactions": getLink(p + "/transactions?bookingStatus=both"),
		},
	}
}

func (s *Server) listCards(c *call) error {
	sess, err := c.aisSession(true)
	if err != nil {
		return err
	}
	out := []cardJSON{}
	for _, k := range c.data().visibleCards(sess.customer, sess.corporateID) {
		j := k.json()
		j.RelatedAccount = "" // the details' member only (cardJSON)
		out = append(out, j)
	}
	return c.reply(http.StatusOK, struct {
		CardAccounts []cardJSON `json:"cardAccounts"`
	}{out})
}

func (s *Server) sessionCard(c *call) (*cardAccount, *session, error) {
	sess, err := c.aisSession(false)
	if err != nil {
		return nil, nil, err
	}
	if k := c.data().visibleCard(sess.customer, sess.corporateID, c.pathValue("id")); k != nil {
		return k, sess, nil
	}
	return nil, nil, errNotFound("The card account is unknown or not covered by the consent.").at("accountId")
}

type maskedPan struct {
	MaskedPan string `json:"maskedPan"`
}

func (s *Server) getCard(c *call) error {
	k, _, err := s.sessionCard(c)
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		CardAccount cardJSON `json:"cardAccount"`
	}{k.json()})
}

func (s *Server) getCardBalances(c *call) error {
	k, _, err := s.sessionCard(c)
	if err != nil {
		return err
	}
	if err := c.budget(k.id, "balances"); err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		CardAccount maskedPan     `json:"cardAccount"`
		Balances    []balanceJSON `json:"balances"`
		Links       links         `json:"_links"`
	}{maskedPan{k.maskedPan}, []balanceJSON{
		{amount(k.forwardAvailable(), k.currency), "forwardAvailable"},
		{amount(k.booked, k.currency), "interimBooked"},
	}, links{"self": getLink(cardPath(k) + "/balances")}})
}

type cardTransactionJSON struct {
	CardTransactionID  string       `json:"cardTransactionId"`
	BookingDate        string       `json:"bookingDate,omitempty"`
	TransactionDate    string       `json:"transactionDate"`
	TransactionAmount  money.Amount `json:"transactionAmount"`
	OriginalAmount     money.Amount `json:"originalAmount"`
	Invoiced           bool         `json:"invoiced"`
	TransactionDetails string       `json:"transactionDetails"`
}

func (t *cardTransaction) json() cardTransactionJSON {
	j := cardTransactionJSON{
		CardTransactionID: t.id, TransactionDate: t.transactionDate.Format(time.DateOnly),
		TransactionAmount: amount(t.amount, t.currency), OriginalAmount: amount(t.originalAmount, t.originalCur),
		Invoiced: t.invoiced, TransactionDetails: t.details,
	}
	if t.booked && !t.bookingDate.IsZero() {
		j.BookingDate = t.bookingDate.Format(time.DateOnly)
	}
	return j
}

// getCardTransactions pages card transactions by transaction date. The
// pending known issue does not affect card accounts (docs/interface.md section 8).
func (s *Server) getCardTransactions(c *call) error {
	k, sess, err := s.sessionCard(c)
	if err != nil {
		return err
	}
	p, err := parsePage(c)
	if err != nil {
		return err
	}
	if err := c.onlineSCARule(sess); err != nil { // scenario.go
		return err
	}
	if err := c.budget(k.id, "transactions"); err != nil {
		return err
	}
	floor := historyFloor(c, sess)
	var booked, pending []*cardTransaction
	for _, t := range k.transactions {
		if !p.in(t.transactionDate, floor) {
			continue
		}
		if t.booked {
			booked = append(booked, t)
		} else {
			pending = append(pending, t)
		}
	}
	date := func(t *cardTransaction) time.Time { return t.transactionDate }
	newestFirst(booked, date)
	newestFirst(pending, date)
	base := cardPath(k) + "/transactions"
	page := struct {
		Booked  []cardTransactionJSON `json:"booked"`
		Pending []cardTransactionJSON `json:"pending"`
		Links   links                 `json:"_links"`
	}{Booked: []cardTransactionJSON{}, Pending: []cardTransactionJSON{}, Links: links{"self": getLink(p.href(base, p.Offset))}}
	more := false
	if p.Status != "pending" {
		var w []*cardTransaction
		w, more = window(booked, p)
		for _, t := range w {
			page.Booked = append(page.Booked, t.json())
		}
	}
	if p.Status != "booked" {
		w, m := window(pending, p)
		more = more || m
		for _, t := range w {
			page.Pending = append(page.Pending, t.json())
		}
	}
	if more {
		page.Links["next"] = getLink(p.href(base, p.Offset+p.Limit))
	}
	return c.reply(http.StatusOK, struct {
		CardAccount      maskedPan `json:"cardAccount"`
		CardTransactions any       `json:"cardTransactions"`
	}{maskedPan{k.maskedPan}, page})
}

// listAgreements answers GET /v1/agreements: the corporate agreements of
// the PSU, `{"agreements":[{"id","name"}]}` (shape assumed, see the package
// doc). It needs a PSU session but no PSU-Corporate-ID (docs/interface.md section 5.10).
func (s *Server) listAgreements(c *call) error {
	sess, err := c.session(needPSU)
	if err != nil {
		return err
	}
	type agreementJSON struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	out := []agreementJSON{}
	for _, id := range append(slices.Clone(sess.customer.agreements), sess.customer.grants...) {
		if ag := c.data().agreements[id]; ag != nil {
			out = append(out, agreementJSON{ag.id, ag.name})
		}
	}
	return c.reply(http.StatusOK, struct {
		Agreements []agreementJSON `json:"agreements"`
	}{out})
}

// boolQuery reads an optional boolean query parameter (rules.ParseBool).
func boolQuery(c *call, name string) (bool, error) {
	b, v := rules.ParseBool(name, c.query(name))
	if v != nil {
		return false, violation(v)
	}
	return b, nil
}
