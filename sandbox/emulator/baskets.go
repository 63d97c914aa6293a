package emulator

import (
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Signing baskets: the endpoints and rules are documented in the package
// doc (doc.go, "Signing baskets").

// maxBasketPayments is the limit of docs/interface.md section 8.
const maxBasketPayments = 10

func (b *basket) links() links {
	self := getLink(b.href())
	l := links{"self": self, "status": getLink(b.href() + "/status")}
	st := b.status()
	if st == statusRCVD {
		self.Verbs = []string{http.MethodGet, http.MethodDelete}
		l["self"] = self
	}
	if st == statusRCVD || st == "PATC" {
		l["startAuthorisation"] = postLink(b.href() + "/authorisations")
	}
	return l
}

func (s *Server) registerBasketRoutes(mux *http.ServeMux) {
	s.handle(mux, "POST /v1/signing-baskets", s.createBasket)
	s.handle(mux, "GET /v1/signing-baskets/{id}", s.getBasket)
	s.handle(mux, "GET /v1/signing-baskets/{id}/status", s.basketStatus)
	s.handle(mux, "DELETE /v1/signing-baskets/{id}", s.deleteBasket)
	s.handle(mux, "POST /v1/signing-baskets/{id}/authorisations", s.startBasketAuthorisation)
}

// createBasket serves POST /v1/signing-baskets.
func (s *Server) createBasket(c *call) error {
	if _, err := c.checkPSU(false); err != nil {
		return err
	}
	var req struct {
		PaymentIDs *[]string `json:"paymentIds"`
	}
	if err := c.decode(&req); err != nil {
		return err
	}
	if req.PaymentIDs == nil || len(*req.PaymentIDs) == 0 {
		return errFormat("paymentIds", "paymentIds must list at least one payment.")
	}
	ids := *req.PaymentIDs
	if len(ids) > maxBasketPayments {
		return errFormat("paymentIds", "A signing basket holds at most %d payments.", maxBasketPayments)
	}
	b := &basket{id: encID("", 32), tpp: c.tpp.id}
	seen := map[string]bool{}
	for i, id := range ids {
		path := "paymentIds[" + strconv.Itoa(i) + "]"
		if seen[id] {
			return errFormat(path, "The payment %q is listed twice.", clip(id))
		}
		seen[id] = true
		p := s.pay.byID[id]
		switch {
		case p == nil || p.tpp != c.tpp.id:
			return newError(http.StatusBadRequest, "RESOURCE_UNKNOWN", "No payment %q for this TPP.", clip(id)).at(path)
		case p.Service != rules.ServicePayments:
			return newError(http.StatusBadRequest, "REFERENCE_MIX_INVALID", "Bulk and periodic payments cannot be added to a signing basket.").at(path)
		case p.Status != statusRCVD:
			return newError(http.StatusConflict, "STATUS_INVALID", "The payment is in status %s; only payments in RCVD can be added.", p.Status).at(path)
		case p.BasketID != "":
			return newError(http.StatusConflict, "STATUS_INVALID", "The payment is already in a signing basket.").at(path)
		}
		b.payments = append(b.payments, p)
	}
	if err := s.roomForTPPBasket(c.tpp.id); err != nil { // Limits.BasketsPerTPP (tppcaps.go)
		return err
	}
	if err := s.roomForBasket(); err != nil { // Limits.Baskets (limits.go)
		return err
	}
	href, err := c.startSCA(scaBasket, s.basketApproval(b))
	if err != nil {
		return err
	}
	if s.baskets.byID == nil {
		s.baskets.byID = map[string]*basket{}
	}
	s.baskets.byID[b.id] = b
	count(&s.usage.baskets, c.tpp.id, 1)
	for _, p := range b.payments {
		p.BasketID = b.id
	}
	l := b.links()
	l["scaRedirect"] = getLink(href)
	c.respHeader().Set("Location", b.href())
	return c.reply(http.StatusCreated, struct {
		BasketID          string `json:"basketId"`
		TransactionStatus string `json:"transactionStatus"`
		Links             links  `json:"_links"`
	}{BasketID: b.id, TransactionStatus: b.status(), Links: l})
}

// lookupBasket finds the basket of the call's path for the calling TPP.
func (s *Server) lookupBasket(c *call) (*basket, error) {
	id := c.pathValue("id")
	b := s.baskets.byID[id]
	if b == nil || b.tpp != c.tpp.id {
		return nil, errNotFound("No signing basket %q for this TPP.", clip(id))
	}
	return b, nil
}

// getBasket serves GET /v1/signing-baskets/{id}.
func (s *Server) getBasket(c *call) error {
	b, err := s.lookupBasket(c)
	if err != nil {
		return err
	}
	ids := make([]string, len(b.payments))
	for i, p := range b.payments {
		ids[i] = p.ID
	}
	return c.reply(http.StatusOK, struct {
		Payments          []string `json:"payments"`
		TransactionStatus string   `json:"transactionStatus"`
		Links             links    `json:"_links"`
	}{Payments: ids, TransactionStatus: b.status(), Links: b.links()})
}

// basketStatus serves GET /v1/signing-baskets/{id}/status.
func (s *Server) basketStatus(c *call) error {
	b, err := s.lookupBasket(c)
	if err != nil {
		return err
	}
	return c.reply(http.StatusOK, struct {
		TransactionStatus string `json:"transactionStatus"`
	}{TransactionStatus: b.status()})
}

// deleteBasket serves DELETE /v1/signing-baskets/{id}.
func (s *Server) deleteBasket(c *call) error {
	b, err := s.lookupBasket(c)
	if err != nil {
		return err
	}
	if st := b.status(); st != statusRCVD {
		return newError(http.StatusMethodNotAllowed, "CANCELLATION_INVALID", "The signing basket cannot be deleted in status %s.", st)
	}
	delete(s.baskets.byID, b.id)
	for _, p := range b.payments {
		p.BasketID = ""
	}
	return c.replyEmpty(http.StatusNoContent)
}

// startBasketAuthorisation serves POST /v1/signing-baskets/{id}/authorisations.
func (s *Server) startBasketAuthorisation(c *call) error {
	b, err := s.lookupBasket(c)
	if err != nil {
		return err
	}
	if st := b.status(); st != statusRCVD && st != "PATC" {
		return newError(http.StatusConflict, "STATUS_INVALID", "The signing basket cannot be authorised in status %s.", st)
	}
	href, err := c.startSCA(scaBasket, s.basketApproval(b))
	if err != nil {
		return err
	}
	return c.reply(http.StatusCreated, scaStarted(href))
}
