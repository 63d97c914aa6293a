package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// basketHeaders are the headers of docs/interface.md section 4.1, for the
// PSU of c's PISP session (see payHeaders), without PSU-Context.
func (c *tppClient) basketHeaders(extra ...reqOpt) []reqOpt {
	return c.payHeaders(append([]reqOpt{without("PSU-Context")}, extra...)...)
}

func basketBody(ids ...string) []byte {
	b, _ := json.Marshal(map[string]any{"paymentIds": ids})
	return b
}

// newPayments creates n SEPA payments from Kari's current account with
// amounts distinct from all earlier payments and returns their ids and self hrefs.
func (c *tppClient) newPayments(n int) (ids, selfs []string) {
	c.t.Helper()
	base := 10 + len(c.s.Control().Payments())
	for i := range n {
		got := c.createPayment("/v1/payments/"+rules.ProductSEPA,
			sepaWith(set("debtorAccount.iban", ibanOf(kariBruk)), set("instructedAmount.amount", fmt.Sprintf("%d.00", base+i))))
		ids = append(ids, got.PaymentID)
		selfs = append(selfs, got.Links["self"].Href)
	}
	return ids, selfs
}

func TestBasketOfThreeOneSCA(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Basket TPP")
	ids, selfs := c.newPayments(3)

	r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var got struct {
		BasketID          string          `json:"basketId"`
		TransactionStatus string          `json:"transactionStatus"`
		Links             map[string]link `json:"_links"`
	}
	require.NoError(t, json.Unmarshal(r.body, &got))
	assert.Regexp(t, basketIDPattern, got.BasketID)
	assert.Equal(t, "RCVD", got.TransactionStatus)
	self := "/v1/signing-baskets/" + got.BasketID
	sca := got.Links["scaRedirect"].Href
	assert.Equal(t, map[string]link{
		"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
		"status":             {Href: self + "/status", Verbs: []string{"GET"}},
		"startAuthorisation": {Href: self + "/authorisations", Verbs: []string{"POST"}},
		"scaRedirect":        {Href: sca, Verbs: []string{"GET"}},
	}, got.Links)

	approve(t, s, sca, CustomerKari)
	for _, p := range selfs {
		assert.Equal(t, "ACTC", c.statusOf(p))
	}
	r = c.get(self)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, map[string]any{
		"payments":          []any{ids[0], ids[1], ids[2]},
		"transactionStatus": "ACTC",
		"_links": map[string]any{
			"self":   map[string]any{"href": self, "verbs": []any{"GET"}},
			"status": map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
		},
	}, r.json(t))
	r = c.get(strings.ReplaceAll(self, "!", "%21") + "/status")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, map[string]any{"transactionStatus": "ACTC"}, r.json(t))

	// Settled payments keep the basket ACTC.
	s.Control().RunBatch()
	for _, p := range selfs {
		assert.Equal(t, "ACSC", c.statusOf(p))
	}
	assert.Equal(t, map[string]any{"transactionStatus": "ACTC"}, c.get(self+"/status").json(t))
	for _, p := range s.Control().Payments() {
		assert.Equal(t, got.BasketID, p.BasketID)
	}
	r = c.do(http.MethodDelete, self, nil)
	code, _ := r.problem(t)
	assert.Equal(t, []any{405, "CANCELLATION_INVALID"}, []any{r.status, code})
}

func TestBasketRejections(t *testing.T) {
	t.Parallel()
	// The bodies' dates are relative to checkToday: the bank's clock is frozen there.
	s := startServer(t, WithClock(fixedClock(checkToday).Now))
	c := newTPPClient(t, s, "Basket rules TPP")
	other := newTPPClient(t, s, "Other basket TPP")
	ids, _ := c.newPayments(11)
	otherIDs, _ := other.newPayments(1)
	bulk := c.createPayment("/v1/bulk-payments/"+rules.ProductNDCT, validBulk().Bytes()).PaymentID
	periodic := c.createPayment("/v1/periodic-payments/"+rules.ProductNDCT, validPeriodic().Bytes()).PaymentID
	signed := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk)),
		set("instructedAmount.amount", "99.00")))
	approve(t, s, signed.Links["scaRedirect"].Href, CustomerKari)

	tests := []struct {
		name string
		body []byte
		opts []reqOpt
		want problem
	}{
		{"11 payments", basketBody(ids...), nil, problem{400, "FORMAT_ERROR", "paymentIds"}},
		{"no payments", basketBody(), nil, problem{400, "FORMAT_ERROR", "paymentIds"}},
		{"paymentIds missing", []byte(`{}`), nil, problem{400, "FORMAT_ERROR", "paymentIds"}},
		{"paymentIds not an array", []byte(`{"paymentIds":"x"}`), nil, problem{400, "FORMAT_ERROR", "paymentIds"}},
		{"twice the same", basketBody(ids[0], ids[0]), nil, problem{400, "FORMAT_ERROR", "paymentIds[1]"}},
		{"bulk payment", basketBody(ids[0], bulk), nil, problem{400, "REFERENCE_MIX_INVALID", "paymentIds[1]"}},
		{"periodic payment", basketBody(periodic), nil, problem{400, "REFERENCE_MIX_INVALID", "paymentIds[0]"}},
		{"unknown payment", basketBody("enc!!nope"), nil, problem{400, "RESOURCE_UNKNOWN", "paymentIds[0]"}},
		{"another TPP's payment", basketBody(otherIDs[0]), nil, problem{400, "RESOURCE_UNKNOWN", "paymentIds[0]"}},
		{"already signed", basketBody(signed.PaymentID), nil, problem{409, "STATUS_INVALID", "paymentIds[0]"}},
		{"PSU-ID missing", basketBody(ids[0]), []reqOpt{without("PSU-ID")}, problem{400, "HTTP_HEADER_REQUIRED", "PSU-ID"}},
		{"PSU-ID not a UUID", basketBody(ids[0]), []reqOpt{hdr("PSU-ID", "kari")}, problem{400, "FORMAT_ERROR", "PSU-ID"}},
		{"x-accept-fix missing", basketBody(ids[0]), []reqOpt{without("x-accept-fix")}, problem{400, "HTTP_HEADER_REQUIRED", "x-accept-fix"}},
		{"PSU-IP-Address missing", basketBody(ids[0]), []reqOpt{without("PSU-IP-Address")}, problem{400, "HTTP_HEADER_REQUIRED", "PSU-IP-Address"}},
		{"TPP-Session-ID missing", basketBody(ids[0]), []reqOpt{without("TPP-Session-ID")}, problem{400, "HTTP_HEADER_REQUIRED", "TPP-Session-ID"}},
		{"TPP-Redirect-URI missing", basketBody(ids[0]), []reqOpt{without("TPP-Redirect-URI")}, problem{400, "HTTP_HEADER_REQUIRED", "TPP-Redirect-URI"}},
	}
	for _, tt := range tests {
		r := c.do(http.MethodPost, "/v1/signing-baskets", tt.body, c.basketHeaders(tt.opts...)...)
		code, path := r.problem(t)
		assert.Equal(t, tt.want, problem{r.status, code, path}, tt.name)
	}

	// 10 is the limit; a payment can then be in no other basket.
	r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[:10]...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[9]), c.basketHeaders()...)
	code, path := r.problem(t)
	assert.Equal(t, problem{409, "STATUS_INVALID", "paymentIds[0]"}, problem{r.status, code, path})

	// Baskets belong to their TPP.
	var b struct {
		BasketID string `json:"basketId"`
	}
	require.NoError(t, json.Unmarshal(c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[10]), c.basketHeaders()...).body, &b))
	for _, r := range []*response{other.get("/v1/signing-baskets/" + b.BasketID), other.do(http.MethodDelete, "/v1/signing-baskets/"+b.BasketID, nil)} {
		code, _ := r.problem(t)
		assert.Equal(t, []any{404, "RESOURCE_UNKNOWN"}, []any{r.status, code})
	}
}

func TestBasketDelete(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Basket delete TPP")
	ids, selfs := c.newPayments(2)
	r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	self := r.json(t)["_links"].(map[string]any)["self"].(map[string]any)["href"].(string)
	sca := r.scaRedirect(t)

	r = c.do(http.MethodDelete, self, nil)
	assert.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, http.StatusNotFound, c.get(self).status)
	for _, p := range selfs {
		assert.Equal(t, "RCVD", c.statusOf(p))
	}
	// The payments may join a new basket; the deleted basket's SCA
	// approves nothing any more.
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	for _, p := range s.Control().Payments() {
		assert.NotEmpty(t, p.BasketID)
	}
	cb, err := s.Control().Authorize(t.Context(), sca, CustomerKari)
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "STATUS_INVALID", cb.Query().Get("code"))
	for _, p := range selfs {
		assert.Equal(t, "RCVD", c.statusOf(p))
	}
}

func TestBasketWorstCase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Worst case TPP")

	newBasket := func(ids ...string) (self string) {
		r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		return r.json(t)["_links"].(map[string]any)["self"].(map[string]any)["href"].(string)
	}
	status := func(self string) string { return c.get(self + "/status").json(t)["transactionStatus"].(string) }

	// One payment authorised on its own: PATC; the basket's SCA finishes it.
	ids, selfs := c.newPayments(2)
	b1 := newBasket(ids...)
	r := c.do(http.MethodPost, selfs[0]+"/authorisations", nil, c.payHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, "PATC", status(b1))
	r = c.do(http.MethodPost, b1+"/authorisations", nil, c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, "ACTC", status(b1))
	r = c.do(http.MethodPost, b1+"/authorisations", nil, c.basketHeaders()...)
	code, _ := r.problem(t)
	assert.Equal(t, []any{409, "STATUS_INVALID"}, []any{r.status, code})

	// A cancelled payment makes the basket RJCT.
	ids, selfs = c.newPayments(2)
	b2 := newBasket(ids...)
	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, selfs[1], nil).status)
	assert.Equal(t, "RJCT", status(b2))

	// A rejected payment (unknown creditor in this bank) makes it RJCT.
	p1 := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, inBankBad, "11.00")).PaymentID
	p2 := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "12.00")).PaymentID
	b3 := newBasket(p1, p2)
	r = c.do(http.MethodPost, b3+"/authorisations", nil, c.basketHeaders(hdr("PSU-ID", uuid.NewString()))...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, "ACTC", status(b3))
	s.Control().RunBatch()
	assert.Equal(t, "RJCT", status(b3))
}

func TestBasketStatusOrder(t *testing.T) {
	t.Parallel()
	mk := func(st ...string) *basket {
		b := &basket{}
		for _, s := range st {
			b.payments = append(b.payments, &payment{Payment: Payment{Status: s}})
		}
		return b
	}
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"RCVD", "RCVD"}, "RCVD"},
		{[]string{"RCVD", "ACTC"}, "PATC"},
		{[]string{"ACTC", "PDNG", "ACSC"}, "ACTC"},
		{[]string{"ACCP", "ACSC"}, "ACTC"},
		{[]string{"ACTC", "RJCT"}, "RJCT"},
		{[]string{"RCVD", "CANC"}, "RJCT"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mk(tt.in...).status(), tt.in)
	}
}
