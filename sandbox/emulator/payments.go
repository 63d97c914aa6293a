package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

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
	var href string
	if s.profile.PaymentSCA == SCARedirectAtCreate { // else the TPP starts it (profile.go)
		if href, err = c.startSCA(scaPayment, s.paymentApproval([]*payment{p})); err != nil {
			return err
		}
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
	if href != "" {
		l["scaRedirect"] = getLink(href)
	}
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
