package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Transaction statuses used by the emulator (docs/interface.md section 3).
const (
	statusRCVD = "RCVD"
	statusPDNG = "PDNG"
	statusACTC = "ACTC"
	statusACSC = "ACSC"
	statusACCP = "ACCP"
	statusRJCT = "RJCT"
	statusCANC = "CANC"
)

// duplicateCode is the code of the logical-duplicate rejection (not
// public; PAYMENT_FAILED is the closest code of docs/interface.md section 7).
const duplicateCode = "PAYMENT_FAILED"

// Payment is a snapshot of a payment held by the emulator, as returned by
// [Controls.Payments]. Tests count them, look up the status a TPP should see
// and check that a retried request created nothing.
//
// The payment and signing-basket endpoints, and the rules they apply, are
// described in the package documentation (Payments; Signing baskets).
type Payment struct {
	// ID is the paymentId (enc!!<base64url of 48 bytes>).
	ID string
	// Service is payments, periodic-payments or bulk-payments.
	Service string
	// Product is the payment product of the path, e.g.
	// norwegian-domestic-credit-transfers.
	Product string
	// Status is the transactionStatus (RCVD, PDNG, ACTC, ACSC, ACCP, RJCT,
	// CANC).
	Status string
	// FundsAvailable is false when the batch found too little money
	// (status ACCP); nil otherwise.
	FundsAvailable *bool
	// RequestID is the X-Request-ID of the request that created it.
	RequestID string
	// Amount is the instructed amount (for a bulk payment the sum of its
	// payments).
	Amount money.Amount
	// Fee is the transactionFees of the creation answer, nil when none.
	Fee *money.Amount
	// DebtorAccount and CreditorAccount are the bban, iban or card
	// identification of the request (a bulk payment: CreditorAccount of
	// its first payment).
	DebtorAccount   string
	CreditorAccount string
	CreditorName    string
	// RequestedExecutionDate is the requested date (YYYY-MM-DD) or "".
	RequestedExecutionDate string
	// BasketID is the signing basket holding the payment, or "".
	BasketID string
	// Created is the emulator time of creation.
	Created time.Time
}

// paymentState is the payments' part of the Server state (guarded by s.mu).
type paymentState struct {
	list      []*payment // creation order
	byID      map[string]*payment
	lastBatch time.Time // clock time the batch schedule was last looked at
}

// payment is a payment record.
type payment struct {
	Payment
	tpp         string
	body        *paymentrules.Body
	dupKey      string
	approved    bool   // SCA completed
	customer    string // customer id of the PSU who approved it
	corporateID string
}

func (p *payment) snapshot() Payment {
	out := p.Payment
	if p.FundsAvailable != nil {
		v := *p.FundsAvailable
		out.FundsAvailable = &v
	}
	if p.Fee != nil {
		f := *p.Fee
		out.Fee = &f
	}
	return out
}

// href is the payment's self link path.
func (p *payment) href() string {
	return "/v1/" + p.Service + "/" + p.Product + "/" + p.ID
}

// Payments returns a snapshot of the payments created so far, oldest
// first. Changing it does not change the emulator.
func (c *Controls) Payments() []Payment {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Payment, len(s.pay.list))
	for i, p := range s.pay.list {
		out[i] = p.snapshot()
	}
	return out
}

func (s *Server) registerPaymentRoutes(mux *http.ServeMux) {
	for _, svc := range rules.PaymentServices {
		base := "/v1/" + svc + "/{product}"
		s.handle(mux, "POST "+base, s.createPayment)
		s.handle(mux, "GET "+base+"/{id}", s.paymentDetails)
		s.handle(mux, "GET "+base+"/{id}/status", s.paymentStatus)
		s.handle(mux, "DELETE "+base+"/{id}", s.cancelPayment)
		s.handle(mux, "POST "+base+"/{id}/authorisations", s.startPaymentAuthorisation)
	}
}

// paymentService returns the payment service of the call's path
// (/v1/{service}/...): payments, periodic-payments or bulk-payments.
func paymentService(c *call) string {
	_, rest, _ := strings.Cut(strings.TrimPrefix(apiPath(c.r), "/"), "/")
	service, _, _ := strings.Cut(rest, "/")
	return service
}

// errProductUnknown is the 404 for a payment product the bank does not offer.
func errProductUnknown(product string) *apiError {
	return newError(http.StatusNotFound, "PRODUCT_UNKNOWN", "The payment product %q is not offered.", clip(product)).at("payment-product")
}

// createPayment serves POST /v1/{service}/{product}.
func (s *Server) createPayment(c *call) error {
	service := paymentService(c)
	product := c.pathValue("product")
	if !rules.KnownProduct(product) {
		return errProductUnknown(product)
	}
	if _, err := c.checkPSU(true); err != nil {
		return err
	}
	allowDup, err := boolQuery(c, "allowLogicalDuplicate")
	if err != nil {
		return err
	}
	body, aerr := checkPaymentBody(service, product, c.body, c.now)
	if aerr != nil {
		return aerr
	}
	amount, aerr := totalAmount(body)
	if aerr != nil {
		return aerr
	}
	p := &payment{
		Payment: Payment{
			ID:                     encID("", 48),
			Service:                service,
			Product:                product,
			Status:                 statusRCVD,
			RequestID:              c.requestID,
			Amount:                 amount,
			DebtorAccount:          accountText(body.DebtorAccount),
			RequestedExecutionDate: deref(body.RequestedExecutionDate),
			Created:                c.now,
		},
		tpp:  c.tpp.id,
		body: body,
	}
	first := firstCredit(body)
	p.CreditorAccount, p.CreditorName = accountText(first.CreditorAccount), deref(first.CreditorName)
	p.dupKey = duplicateKey(c.tpp.id, service, product, body)
	if !allowDup && s.isDuplicate(p.dupKey) {
		return newError(http.StatusBadRequest, duplicateCode,
			"The payment is a logical duplicate of an existing payment (same debtor, creditor, amount, remittance and date). Set allowLogicalDuplicate=true to create it anyway.")
	}
	p.Fee = s.paymentFee(p)
	if err := s.roomForTPPPayment(c.tpp.id); err != nil { // Limits.PaymentsPerTPP (tppcaps.go)
		return err
	}
	if err := s.roomForPayment(); err != nil { // Limits.Payments (limits.go)
		return err
	}
	href, err := c.startSCA(scaPayment, s.paymentApproval([]*payment{p}))
	if err != nil {
		return err
	}
	if s.pay.byID == nil {
		s.pay.byID = map[string]*payment{}
	}
	s.pay.list = append(s.pay.list, p)
	count(&s.usage.payments, c.tpp.id, 1)
	s.pay.byID[p.ID] = p

	type created struct {
		PaymentID               string        `json:"paymentId"`
		TransactionStatus       string        `json:"transactionStatus"`
		TransactionFees         *money.Amount `json:"transactionFees,omitempty"`
		TransactionFeeIndicator bool          `json:"transactionFeeIndicator"`
		Links                   links         `json:"_links"`
	}
	l := paymentLinks(p)
	l["scaRedirect"] = getLink(href)
	c.respHeader().Set("Location", p.href())
	return c.reply(http.StatusCreated, created{
		PaymentID: p.ID, TransactionStatus: p.Status, TransactionFees: p.Fee,
		TransactionFeeIndicator: p.Fee != nil, Links: l,
	})
}

// lookupPayment finds the payment of the call's path for the calling TPP.
func (s *Server) lookupPayment(c *call) (*payment, error) {
	service := paymentService(c)
	product := c.pathValue("product")
	if !rules.KnownProduct(product) {
		return nil, errProductUnknown(product)
	}
	id := c.pathValue("id")
	p := s.pay.byID[id]
	if p == nil || p.tpp != c.tpp.id || p.Service != service || p.Product != product {
		return nil, errNotFound("No payment %q for this TPP and product.", clip(id))
	}
	return p, nil
}

// readable applies the known issue of docs/interface.md section 4.2: a single NDCT is
// unreadable before it has been approved.
func (s *Server) readable(p *payment) error {
	if s.knownIssues && !p.approved && p.Service == rules.ServicePayments && p.Product == rules.ProductNDCT {
		return errNotFound("The payment cannot be read before it has been approved (known issue of the platform).")
	}
	return nil
}

// paymentLinks are the links of a payment in its current status: DELETE on
// self and startAuthorisation only while it is RCVD (docs/interface.md section 10).
func paymentLinks(p *payment) links {
	self := getLink(p.href())
	l := links{"self": self, "status": getLink(p.href() + "/status")}
	if p.Status == statusRCVD {
		self.Verbs = []string{http.MethodGet, http.MethodDelete}
		l["self"] = self
		l["startAuthorisation"] = postLink(p.href() + "/authorisations")
	}
	return l
}

// paymentStatus serves GET .../{id}/status.
func (s *Server) paymentStatus(c *call) error {
	p, err := s.lookupPayment(c)
	if err != nil {
		return err
	}
	if err := s.readable(p); err != nil {
		return err
	}
	type status struct {
		PaymentID         string `json:"paymentId"`
		TransactionStatus string `json:"transactionStatus"`
		FundsAvailable    *bool  `json:"fundsAvailable,omitempty"`
		Links             links  `json:"_links"`
	}
	return c.reply(http.StatusOK, status{PaymentID: p.ID, TransactionStatus: p.Status, FundsAvailable: p.FundsAvailable, Links: paymentLinks(p)})
}

// paymentDetails serves GET .../{id}: the request echoed with paymentId
// and links, without transactionStatus (docs/interface.md section 10).
func (s *Server) paymentDetails(c *call) error {
	p, err := s.lookupPayment(c)
	if err != nil {
		return err
	}
	if err := s.readable(p); err != nil {
		return err
	}
	type details struct {
		paymentrules.Body
		PaymentID string `json:"paymentId"`
		Links     links  `json:"_links"`
	}
	return c.reply(http.StatusOK, details{Body: *p.body, PaymentID: p.ID, Links: paymentLinks(p)})
}

// cancelPayment serves DELETE .../{id}.
func (s *Server) cancelPayment(c *call) error {
	p, err := s.lookupPayment(c)
	if err != nil {
		return err
	}
	if p.Status != statusRCVD {
		return newError(http.StatusMethodNotAllowed, "CANCELLATION_INVALID", "The payment cannot be cancelled in status %s.", p.Status)
	}
	p.Status = statusCANC
	return c.replyEmpty(http.StatusNoContent)
}

// startPaymentAuthorisation serves POST .../{id}/authorisations.
func (s *Server) startPaymentAuthorisation(c *call) error {
	p, err := s.lookupPayment(c)
	if err != nil {
		return err
	}
	if p.Status != statusRCVD {
		return newError(http.StatusConflict, "STATUS_INVALID", "The payment cannot be authorised in status %s.", p.Status)
	}
	href, err := c.startSCA(scaPayment, s.paymentApproval([]*payment{p}))
	if err != nil {
		return err
	}
	return c.reply(http.StatusCreated, scaStarted(href))
}

// scaStarted is the answer of a start-authorisation call.
func scaStarted(href string) any {
	return struct {
		SCAStatus string `json:"scaStatus"`
		Links     links  `json:"_links"`
	}{SCAStatus: "started", Links: links{"scaRedirect": getLink(href)}}
}

// paymentApproval returns the SCA callback that approves ps (one payment,
// or the payments of a basket): each still in RCVD becomes ACTC, or PDNG
// when its execution date is after the bank date; periodic payments
// become ACTC. A debtor account the PSU may not use makes the payment
// RJCT and the redirect a failure. Runs with s.mu held.
func (s *Server) paymentApproval(ps []*payment) func(scaResult) error {
	return func(res scaResult) error {
		if !res.OK {
			return nil // the PSU cancelled: the payments stay RCVD
		}
		today := rules.BankDate(res.Now)
		var refused error
		for _, p := range ps {
			if p.Status != statusRCVD {
				continue
			}
			st := s.storeOf(p.tpp)
			if !st.mayDebit(res.Customer, res.CorporateID, p.body.DebtorAccount) || s.paymentBlocked(st, p.body.DebtorAccount) {
				p.Status = statusRJCT
				refused = newError(http.StatusBadRequest, "PAYMENT_FAILED", "The debtor account is not an account the PSU may pay from.")
				continue
			}
			p.approved, p.customer, p.corporateID = true, res.Customer.id, res.CorporateID
			p.Status = statusACTC
			if p.Service != rules.ServicePeriodic && p.RequestedExecutionDate > today {
				p.Status = statusPDNG
			}
		}
		return refused
	}
}

// mayDebit reports whether the customer (in the corporate agreement, if
// any) may pay from the account reference.
func (st *store) mayDebit(cu *customer, agreementID string, ref *paymentrules.Account) bool {
	if cu == nil || ref == nil {
		return false
	}
	if ref.Other != nil {
		k := st.cardByReference(deref(ref.Other.Identification))
		return k != nil && k.owner == cu.id
	}
	a := st.debtorAccount(ref)
	if a == nil {
		return false
	}
	for _, v := range st.visibleAccounts(cu, agreementID) {
		if v == a {
			return true
		}
	}
	return false
}

// debtorAccount returns the sandbox account of a bban or iban reference.
func (st *store) debtorAccount(ref *paymentrules.Account) *account {
	switch {
	case ref == nil:
		return nil
	case ref.BBAN != nil:
		return st.accountByBBAN(*ref.BBAN)
	case ref.IBAN != nil:
		return st.accountByIBAN(*ref.IBAN)
	}
	return nil
}

// isDuplicate reports whether a live payment has the duplicate key.
func (s *Server) isDuplicate(key string) bool {
	for _, p := range s.pay.list {
		if p.dupKey == key && p.Status != statusRJCT && p.Status != statusCANC {
			return true
		}
	}
	return false
}

// duplicateKey identifies a payment's content for the logical-duplicate
// check: TPP, service, product, debtor, and per payment the creditor,
// amount and remittance, and the execution date.
func duplicateKey(tpp, service, product string, b *paymentrules.Body) string {
	type credit struct {
		Creditor   *paymentrules.Account     `json:"c"`
		Amount     string                    `json:"a"`
		Currency   string                    `json:"x"`
		Text       *string                   `json:"t"`
		Structured *paymentrules.Reference   `json:"s"`
		Array      *[]paymentrules.Reference `json:"r"`
	}
	key := struct {
		TPP, Service, Product string
		Debtor                *paymentrules.Account
		Date, Start           *string
		Credits               []credit
	}{TPP: tpp, Service: service, Product: product, Debtor: b.DebtorAccount, Date: b.RequestedExecutionDate, Start: b.StartDate}
	for _, e := range credits(b) {
		a, _ := amountOf(e.InstructedAmount)
		key.Credits = append(key.Credits, credit{Creditor: e.CreditorAccount, Amount: a.Text(), Currency: a.Currency,
			Text: e.RemittanceInformationUnstructured, Structured: e.RemittanceInformationStructured,
			Array: e.RemittanceInformationStructuredArray})
	}
	out, _ := json.Marshal(key)
	return string(out)
}

// credits returns the payments of a body: itself, or a bulk's entries.
func credits(b *paymentrules.Body) []*paymentrules.Body {
	if b.Payments == nil {
		return []*paymentrules.Body{b}
	}
	out := make([]*paymentrules.Body, len(*b.Payments))
	for i := range *b.Payments {
		out[i] = &(*b.Payments)[i]
	}
	return out
}

func firstCredit(b *paymentrules.Body) *paymentrules.Body {
	if cs := credits(b); len(cs) > 0 {
		return cs[0]
	}
	return b
}

// amountOf parses a checked instructedAmount.
func amountOf(a *paymentrules.Amount) (money.Amount, bool) {
	if a == nil || a.Currency == nil {
		return money.Amount{}, false
	}
	var text string
	if err := json.Unmarshal(a.Amount, &text); err != nil {
		return money.Amount{}, false
	}
	m, err := money.Parse(text, *a.Currency)
	return m, err == nil
}

// totalAmount is the instructed amount of a checked body; for a bulk
// payment the sum of its payments, which must share one currency.
func totalAmount(b *paymentrules.Body) (money.Amount, *apiError) {
	var total money.Amount
	for i, e := range credits(b) {
		a, ok := amountOf(e.InstructedAmount)
		if !ok {
			return money.Amount{}, errFormat("instructedAmount", "instructedAmount is invalid.")
		}
		if i == 0 {
			total = a
			continue
		}
		if a.Currency != total.Currency {
			return money.Amount{}, errFormat("payments["+strconv.Itoa(i)+"].instructedAmount.currency",
				"The payments of a bulk payment must share one currency.")
		}
		total.Value = total.Value.Add(a.Value)
	}
	return total, nil
}

// accountText is the bban, iban or card identification of a reference.
func accountText(a *paymentrules.Account) string {
	switch {
	case a == nil:
		return ""
	case a.BBAN != nil:
		return *a.BBAN
	case a.IBAN != nil:
		return *a.IBAN
	case a.Other != nil:
		return deref(a.Other.Identification)
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Fees of the sandbox per product (docs/interface.md section 10 shows 3.00 NOK on an NDCT
// and SEPA 2.00 EUR; the rest is the emulator's choice): instant payments
// and transfers between two accounts of one customer are free; a bulk
// payment pays the fee once per payment.
var productFees = map[string]money.Amount{
	rules.ProductNDCT: money.MustParse("3.00", "NOK"),
	rules.ProductSEPA: money.MustParse("2.00", "EUR"),
	rules.ProductCBCT: money.MustParse("50.00", "NOK"),
}

// paymentFee returns the transactionFees of p, nil when it is free.
func (s *Server) paymentFee(p *payment) *money.Amount {
	fee, ok := productFees[p.Product]
	if !ok {
		return nil
	}
	cs := credits(p.body)
	if len(cs) == 1 && s.storeOf(p.tpp).ownTransfer(p.body.DebtorAccount, cs[0].CreditorAccount) {
		return nil
	}
	fee.Value = fee.Value.Mul(decimal.NewFromInt(int64(len(cs))))
	return &fee
}

// ownTransfer reports whether both references are sandbox accounts of the
// same customer.
func (st *store) ownTransfer(debtor, creditor *paymentrules.Account) bool {
	d, c := st.debtorAccount(debtor), st.debtorAccount(creditor)
	return d != nil && c != nil && d.owner == c.owner
}
