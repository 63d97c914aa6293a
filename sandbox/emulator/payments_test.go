package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Sandbox accounts of the default data used by the payment tests.
var (
	kariBruk  = makeBBAN("9531277606") // 15234.75 NOK
	kariSpar  = makeBBAN("9531762150") // 100.00 NOK
	olaBruk   = makeBBAN("1206559276")
	external  = "91026527436"          // another bank: assumed to exist
	inBankBad = makeBBAN("9531000000") // this bank's code, no such account
)

var (
	paymentIDPattern = regexp.MustCompile(`^enc!![A-Za-z0-9_-]{64}$`)
	basketIDPattern  = regexp.MustCompile(`^enc!![A-Za-z0-9_-]{43}=$`)
)

// pisSession is the TPP-Session-ID of the payment tests' PISP session.
const pisSession = "pis-session-1"

// payHeaders are the headers of docs/interface.md section 4.2 besides the
// signed ones, for CustomerKari as PSU: the PSU-ID of c's PISP session
// (pisPSU), PSU-Context PRIVATE. extra comes after them and may change
// them.
func (c *tppClient) payHeaders(extra ...reqOpt) []reqOpt {
	return append([]reqOpt{
		hdr("x-accept-fix", "amount-as-string"),
		hdr("TPP-Session-ID", pisSession),
		hdr("TPP-Redirect-URI", "https://tpp.example/cb?state=pay"),
		hdr("PSU-IP-Address", "192.0.2.10"),
		hdr("PSU-ID", c.pisPSU()),
		hdr("PSU-Context", "PRIVATE"),
	}, extra...)
}

// pisPSUs caches the PSU-ID of CustomerKari per TPP (by its credentials,
// which copies of a tppClient share).
var pisPSUs sync.Map

// pisPSU returns CustomerKari's PSU-ID for c's TPP, running the PISP flow
// (pisLogin) in session pisSession the first time.
func (c *tppClient) pisPSU() string {
	c.t.Helper()
	if id, ok := pisPSUs.Load(c.creds); ok {
		return id.(string)
	}
	cb := c.pisLogin(pisSession, func(href string) (*url.URL, error) {
		return c.s.Control().Authorize(context.Background(), href, CustomerKari)
	})
	id := cb.Query().Get("psu-id")
	pisPSUs.Store(c.creds, id)
	return id
}

// pisLogin runs the PISP flow of docs/interface.md section 5.10 in
// session sid: GET /v1/user answers 401 with a scaRedirect, authorize
// completes the SCA, and GET /v1/user with the callback's psu-id (and
// psu-corporate-id) answers 200 with the same ids. It returns the
// callback URL.
func (c *tppClient) pisLogin(sid string, authorize func(href string) (*url.URL, error)) *url.URL {
	c.t.Helper()
	r := c.get("/v1/user", hdr("TPP-Session-ID", sid))
	require.Equal(c.t, http.StatusUnauthorized, r.status, string(r.body))
	cb, err := authorize(r.scaRedirect(c.t))
	require.NoError(c.t, err)
	q := cb.Query()
	require.NotEmpty(c.t, q.Get("psu-id"), cb.String())
	opts := []reqOpt{hdr("TPP-Session-ID", sid), hdr("PSU-ID", q.Get("psu-id"))}
	if corp := q.Get("psu-corporate-id"); corp != "" {
		opts = append(opts, hdr("PSU-Corporate-ID", corp))
	}
	r = c.get("/v1/user", opts...)
	require.Equal(c.t, http.StatusOK, r.status, string(r.body))
	var user struct {
		PSUID, PSUCorporateID, Context string
	}
	require.NoError(c.t, json.Unmarshal(r.body, &user))
	require.Equal(c.t, []string{q.Get("psu-id"), q.Get("psu-corporate-id"), q.Get("context")},
		[]string{user.PSUID, user.PSUCorporateID, user.Context})
	return cb
}

// ndctBody is a domestic payment of amount from debtor to creditor.
func ndctBody(debtor, creditor, amount string, edit ...func(body)) []byte {
	b := validNDCT()
	setPath(b, "debtorAccount.bban", debtor)
	setPath(b, "creditorAccount.bban", creditor)
	setPath(b, "instructedAmount.amount", amount)
	for _, e := range edit {
		e(b)
	}
	return b.Bytes()
}

// created is a payment creation answer.
type created struct {
	PaymentID               string          `json:"paymentId"`
	TransactionStatus       string          `json:"transactionStatus"`
	TransactionFees         *feeJSON        `json:"transactionFees"`
	TransactionFeeIndicator *bool           `json:"transactionFeeIndicator"`
	Links                   map[string]link `json:"_links"`
}

type feeJSON struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// createPayment posts a payment and decodes a 201 answer.
func (c *tppClient) createPayment(path string, b []byte, opts ...reqOpt) created {
	c.t.Helper()
	r := c.do(http.MethodPost, path, b, c.payHeaders(opts...)...)
	require.Equal(c.t, http.StatusCreated, r.status, string(r.body))
	var out created
	require.NoError(c.t, json.Unmarshal(r.body, &out))
	return out
}

// paymentStatus reads the status document of a payment self href.
func (c *tppClient) paymentStatus(self string) map[string]any {
	c.t.Helper()
	r := c.get(self + "/status")
	require.Equal(c.t, http.StatusOK, r.status, string(r.body))
	return r.json(c.t)
}

func (c *tppClient) statusOf(self string) string {
	c.t.Helper()
	return c.paymentStatus(self)["transactionStatus"].(string)
}

// approve completes the SCA of a scaRedirect as customer.
func approve(t *testing.T, s *Server, href, customer string) *url.URL {
	t.Helper()
	u, err := s.Control().Authorize(t.Context(), href, customer)
	require.NoError(t, err)
	return u
}

// balance returns the booked balance of a sandbox account.
func balance(s *Server, bban string) decimal.Decimal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.soleStore().accountByBBAN(bban).booked
}

// caseNamed returns the body case called name.
func caseNamed(t *testing.T, name string) bodyCase {
	t.Helper()
	for _, c := range bodyCases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no body case %q", name)
	return bodyCase{}
}

func fixedClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func TestPaymentBodyRules(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithClock(fixedClock(checkToday).Now))
	c := newTPPClient(t, s, "Rules TPP")
	for _, tc := range bodyCases {
		t.Run(tc.Name, func(t *testing.T) {
			cc := *c
			cc.t = t
			r := cc.do(http.MethodPost, "/v1/"+tc.Service+"/"+tc.Product+"?allowLogicalDuplicate=true", tc.Body(), cc.payHeaders()...)
			if tc.Want == nil {
				assert.Equal(t, http.StatusCreated, r.status, string(r.body))
				return
			}
			code, path := r.problem(t)
			want := problem{Status: http.StatusBadRequest, Code: tc.Want.Code, Path: tc.Want.Path}
			assert.Equal(t, want, problem{Status: r.status, Code: code, Path: path}, string(r.body))
		})
	}
}

func TestPaymentProducts(t *testing.T) {
	t.Parallel()
	clock := fixedClock(checkToday)
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Products TPP")
	own := ndctBody(kariBruk, olaBruk, "10.00")
	ownKari := ndctBody(kariBruk, kariSpar, "10.00")
	fee := func(a, cur string) *feeJSON { return &feeJSON{Amount: a, Currency: cur} }
	bulk := validBulk()
	bulkEntries := bulk["payments"].([]any)
	bulk["payments"] = append(bulkEntries, bulkEntries[0])
	tests := []struct {
		name, service, product string
		body                   []byte
		fee                    *feeJSON
	}{
		{"ndct", "payments", rules.ProductNDCT, validNDCT().Bytes(), fee("3.00", "NOK")},
		{"ndct to another customer of the bank", "payments", rules.ProductNDCT, own, fee("3.00", "NOK")},
		{"ndct between own accounts", "payments", rules.ProductNDCT, ownKari, nil},
		{"sepa", "payments", rules.ProductSEPA, validSEPA().Bytes(), fee("2.00", "EUR")},
		{"cross-border", "payments", rules.ProductCBCT, caseNamed(t, "cross-border iban").Body(), fee("50.00", "NOK")},
		{"instant", "payments", rules.ProductInstant, validNDCT().Bytes(), nil},
		{"periodic", "periodic-payments", rules.ProductNDCT, validPeriodic().Bytes(), fee("3.00", "NOK")},
		{"bulk of 3", "bulk-payments", rules.ProductNDCT, bulk.Bytes(), fee("9.00", "NOK")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := *c
			cc.t = t
			got := cc.createPayment("/v1/"+tt.service+"/"+tt.product, tt.body)
			assert.Regexp(t, paymentIDPattern, got.PaymentID)
			assert.Equal(t, "RCVD", got.TransactionStatus)
			assert.Equal(t, tt.fee, got.TransactionFees)
			require.NotNil(t, got.TransactionFeeIndicator)
			assert.Equal(t, tt.fee != nil, *got.TransactionFeeIndicator)
			self := "/v1/" + tt.service + "/" + tt.product + "/" + got.PaymentID
			sca := got.Links["scaRedirect"]
			assert.True(t, strings.HasPrefix(sca.Href, strings.TrimSuffix(s.URL, "/api")+"/tap-sandbox/"), sca.Href)
			assert.Equal(t, map[string]link{
				"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
				"status":             {Href: self + "/status", Verbs: []string{"GET"}},
				"startAuthorisation": {Href: self + "/authorisations", Verbs: []string{"POST"}},
				"scaRedirect":        {Href: sca.Href, Verbs: []string{"GET"}},
			}, got.Links)
		})
	}
	ps := s.Control().Payments()
	require.Len(t, ps, len(tests))
	assert.Equal(t, "bulk-payments", ps[len(ps)-1].Service)
	assert.Equal(t, "3750.00 NOK", ps[len(ps)-1].Amount.String())
}

func TestPaymentProductUnknown(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Unknown product TPP")
	for _, path := range []string{"/v1/payments/domestic", "/v1/periodic-payments/swish", "/v1/bulk-payments/x"} {
		r := c.do(http.MethodPost, path, validNDCT().Bytes(), c.payHeaders()...)
		code, at := r.problem(t)
		assert.Equal(t, problem{Status: 404, Code: "PRODUCT_UNKNOWN", Path: "payment-product"}, problem{r.status, code, at}, path)
	}
	r := c.get("/v1/payments/domestic/enc!!abc/status")
	code, _ := r.problem(t)
	assert.Equal(t, []any{404, "PRODUCT_UNKNOWN"}, []any{r.status, code})
}

func TestPaymentHeaders(t *testing.T) {
	t.Parallel()
	// The bodies' dates are relative to checkToday: the bank's clock is frozen there.
	s := startServer(t, WithClock(fixedClock(checkToday).Now))
	c := newTPPClient(t, s, "Headers TPP")
	corp := c.consent("corp-session", func(href string) (*url.URL, error) {
		return s.Control().AuthorizeCorporate(context.Background(), href, CustomerFjordlys, "")
	}).Query().Get("psu-id")
	// Another TPP's PSU-ID for the same customer names no PSU of this TPP.
	foreign := newTPPClient(t, s, "Other TPP").pisPSU()
	require.NotEqual(t, c.pisPSU(), foreign)
	tests := []struct {
		name string
		opts []reqOpt
		want problem
	}{
		{"x-accept-fix missing", []reqOpt{without("x-accept-fix")}, problem{400, "HTTP_HEADER_REQUIRED", "x-accept-fix"}},
		{"x-accept-fix without amount-as-string", []reqOpt{hdr("x-accept-fix", "longer-names")}, problem{400, "HTTP_HEADER_REQUIRED", "x-accept-fix"}},
		{"TPP-Session-ID missing", []reqOpt{without("TPP-Session-ID")}, problem{400, "HTTP_HEADER_REQUIRED", "TPP-Session-ID"}},
		{"TPP-Redirect-URI missing", []reqOpt{without("TPP-Redirect-URI")}, problem{400, "HTTP_HEADER_REQUIRED", "TPP-Redirect-URI"}},
		{"TPP-Redirect-URI relative", []reqOpt{hdr("TPP-Redirect-URI", "/cb")}, problem{400, "FORMAT_ERROR", "TPP-Redirect-URI"}},
		{"PSU-ID missing", []reqOpt{without("PSU-ID")}, problem{400, "HTTP_HEADER_REQUIRED", "PSU-ID"}},
		{"PSU-IP-Address missing", []reqOpt{without("PSU-IP-Address")}, problem{400, "HTTP_HEADER_REQUIRED", "PSU-IP-Address"}},
		{"PSU-Context not a context", []reqOpt{hdr("PSU-Context", "private")}, problem{400, "FORMAT_ERROR", "PSU-Context"}},
		{"PSU-Context not the PSU's", []reqOpt{hdr("PSU-Context", "CORPORATE")}, problem{400, "FORMAT_ERROR", "PSU-Context"}},
		{"PSU-ID not a UUID", []reqOpt{hdr("PSU-ID", "13039319955")}, problem{400, "FORMAT_ERROR", "PSU-ID"}},
		{"PSU-ID never issued", []reqOpt{hdr("PSU-ID", uuid.NewString())}, problem{401, "PSU_CREDENTIALS_INVALID", "PSU-ID"}},
		{"PSU-ID of another TPP", []reqOpt{hdr("PSU-ID", foreign)}, problem{401, "PSU_CREDENTIALS_INVALID", "PSU-ID"}},
		{"private PSU with PSU-Corporate-ID", []reqOpt{hdr("PSU-Corporate-ID", uuid.NewString())}, problem{401, "CORPORATE_ID_INVALID", "PSU-Corporate-ID"}},
		{"corporate PSU without PSU-Corporate-ID", []reqOpt{hdr("PSU-ID", corp), hdr("PSU-Context", "CORPORATE")}, problem{400, "HTTP_HEADER_REQUIRED", "PSU-Corporate-ID"}},
		{"corporate PSU with another agreement", []reqOpt{hdr("PSU-ID", corp), hdr("PSU-Context", "CORPORATE"), hdr("PSU-Corporate-ID", uuid.NewString())},
			problem{401, "CORPORATE_ID_INVALID", "PSU-Corporate-ID"}},
		{"PSU-Device-ID not a UUID", []reqOpt{hdr("PSU-Device-ID", "iphone-15")}, problem{400, "FORMAT_ERROR", "PSU-Device-ID"}},
		{"PSU-HTTP-Method not a method", []reqOpt{hdr("PSU-HTTP-Method", "FETCH")}, problem{400, "FORMAT_ERROR", "PSU-HTTP-Method"}},
		{"TPP-Redirect-Preferred not a boolean", []reqOpt{hdr("TPP-Redirect-Preferred", "yes")}, problem{400, "FORMAT_ERROR", "TPP-Redirect-Preferred"}},
		{"allowLogicalDuplicate not a boolean", []reqOpt{{pre: func(r *http.Request) { r.URL.RawQuery = "allowLogicalDuplicate=yes" }}},
			problem{400, "FORMAT_ERROR", "allowLogicalDuplicate"}},
	}
	for _, tt := range tests {
		for path, b := range map[string]body{"/v1/payments/" + rules.ProductNDCT: validNDCT(),
			"/v1/periodic-payments/" + rules.ProductNDCT: validPeriodic(), "/v1/bulk-payments/" + rules.ProductNDCT: validBulk()} {
			r := c.do(http.MethodPost, path, b.Bytes(), c.payHeaders(tt.opts...)...)
			code, at := r.problem(t)
			assert.Equal(t, tt.want, problem{r.status, code, at}, "%s: %s", tt.name, path)
		}
	}
	assert.Empty(t, s.Control().Payments())
	c.createPayment("/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes())
	assert.Len(t, s.Control().Payments(), 1)
}

// TestPISPFlow: a PISP without a PSU-ID starts with GET /v1/user, whose
// SCA redirect carries the PSU-ID (and, for a corporate PSU, the
// agreement) to create payments with (docs/interface.md section 5.10).
func TestPISPFlow(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "PISP")
	body := ndctBody(kariBruk, external, "42.00")

	// No PSU-ID yet: the payment is refused and GET /v1/user starts SCA.
	r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, body, c.payHeaders(without("PSU-ID"))...)
	code, at := r.problem(t)
	assert.Equal(t, problem{400, "HTTP_HEADER_REQUIRED", "PSU-ID"}, problem{r.status, code, at})
	r = c.get("/v1/user", hdr("TPP-Session-ID", "first-visit"))
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	cb := approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, "default", cb.Query().Get("state"), "the TPP's own query comes back")
	assert.Equal(t, "PRIVATE", cb.Query().Get("context"))
	assert.Empty(t, cb.Query().Get("psu-corporate-id"))
	psuID := cb.Query().Get("psu-id")

	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, body,
		hdr("TPP-Session-ID", "first-visit"), hdr("PSU-ID", psuID), hdr("PSU-Context", cb.Query().Get("context")))
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	assert.Equal(t, "ACTC", c.statusOf(got.Links["self"].Href))

	// A basket needs the same PSU-ID, not PSU-Context.
	other := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "43.00"), hdr("PSU-ID", psuID))
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(other.PaymentID), c.basketHeaders(hdr("PSU-ID", uuid.NewString()))...)
	code, at = r.problem(t)
	assert.Equal(t, problem{401, "PSU_CREDENTIALS_INVALID", "PSU-ID"}, problem{r.status, code, at})
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(other.PaymentID), c.basketHeaders(hdr("PSU-ID", psuID))...)
	assert.Equal(t, http.StatusCreated, r.status, string(r.body))

	// A corporate PSU: the redirect carries the agreement too.
	cb = c.pisLogin("corp", func(href string) (*url.URL, error) {
		return s.Control().AuthorizeCorporate(t.Context(), href, CustomerFjordlys, "")
	})
	assert.Equal(t, "CORPORATE", cb.Query().Get("context"))
	assert.NotEmpty(t, cb.Query().Get("psu-corporate-id"))
}

// TestRedirectURIRequired: every call outside /v1/sandbox/ needs
// TPP-Redirect-URI (docs/interface.md section 5.8), checked before
// anything the endpoint looks at; the mock-data calls do not.
func TestRedirectURIRequired(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Redirect TPP")
	for _, call := range []struct{ method, path string }{
		{http.MethodGet, "/v1/accounts"},
		{http.MethodGet, "/v1/accounts/enc!!x/balances"},
		{http.MethodGet, "/v1/card-accounts"},
		{http.MethodGet, "/v1/agreements"},
		{http.MethodGet, "/v1/user"},
		{http.MethodPost, "/v1/bank-offered-consents"},
		{http.MethodPost, "/v1/consents"},
		{http.MethodPost, "/v1/payments/" + rules.ProductNDCT},
		{http.MethodPost, "/v1/payments/no-such-product"},
		{http.MethodGet, "/v1/payments/" + rules.ProductNDCT + "/enc!!x/status"},
		{http.MethodGet, "/v1/periodic-payments/" + rules.ProductNDCT + "/enc!!x"},
		{http.MethodDelete, "/v1/bulk-payments/" + rules.ProductNDCT + "/enc!!x"},
		{http.MethodPost, "/v1/payments/" + rules.ProductNDCT + "/enc!!x/authorisations"},
		{http.MethodPost, "/v1/signing-baskets"},
		{http.MethodGet, "/v1/signing-baskets/enc!!x/status"},
		{http.MethodGet, "/v1/tpps/PSDNO-FSA-1/contact-information"},
	} {
		r := c.do(call.method, call.path, nil, without("TPP-Redirect-URI"))
		code, at := r.problem(t)
		assert.Equal(t, problem{400, "HTTP_HEADER_REQUIRED", "TPP-Redirect-URI"}, problem{r.status, code, at}, call.method+" "+call.path)
	}
	for _, path := range []string{"/v1/sandbox/customers", "/v1/sandbox/customers/enc!!x"} {
		r := c.get(path)
		assert.NotEqual(t, http.StatusBadRequest, r.status, path+": "+string(r.body))
	}
	r := c.do(http.MethodPost, "/v1/sandbox/initialize", nil)
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}

func TestLogicalDuplicate(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Duplicate TPP")
	other := newTPPClient(t, s, "Other TPP")
	path := "/v1/payments/" + rules.ProductSEPA
	first := c.createPayment(path, validSEPA().Bytes())

	r := c.do(http.MethodPost, path, validSEPA().Bytes(), c.payHeaders()...)
	code, _ := r.problem(t)
	assert.Equal(t, []any{400, "PAYMENT_FAILED"}, []any{r.status, code})
	assert.Contains(t, string(r.body), "logical duplicate")

	// Deliberately allowed; another TPP; another amount: all created.
	c.createPayment(path+"?allowLogicalDuplicate=true", validSEPA().Bytes())
	other.createPayment(path, validSEPA().Bytes())
	c.createPayment(path, sepaWith(set("instructedAmount.amount", "100.01")))
	c.createPayment(path, sepaWith(set("remittanceInformationUnstructured", "Faktura 2")))
	c.createPayment(path, sepaWith(set("requestedExecutionDate", time.Now().AddDate(0, 0, 5).Format(time.DateOnly))))
	require.Len(t, s.Control().Payments(), 6)

	// A cancelled payment no longer counts; its twin still does.
	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, first.Links["self"].Href, nil).status)
	r = c.do(http.MethodPost, path, validSEPA().Bytes(), c.payHeaders()...)
	assert.Equal(t, http.StatusBadRequest, r.status, "the allowed twin is live")
}

func sepaWith(edit ...func(body)) []byte {
	b := validSEPA()
	for _, e := range edit {
		e(b)
	}
	return b.Bytes()
}

func TestPaymentLifecycle(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Lifecycle TPP")
	before, olaBefore := balance(s, kariBruk), balance(s, olaBruk)

	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, olaBruk, "1250.00"))
	self := got.Links["self"].Href
	// Known issue (docs/interface.md section 4.2): unreadable before approval.
	for _, p := range []string{self, self + "/status"} {
		r := c.get(p)
		code, _ := r.problem(t)
		assert.Equal(t, []any{404, "RESOURCE_UNKNOWN"}, []any{r.status, code}, p)
	}

	cb := approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	assert.Equal(t, "pay", cb.Query().Get("state"))
	assert.NotEmpty(t, cb.Query().Get("psu-id"))

	want := map[string]any{
		"paymentId":         got.PaymentID,
		"transactionStatus": "ACTC",
		"_links": map[string]any{
			"self":   map[string]any{"href": self, "verbs": []any{"GET"}},
			"status": map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
		},
	}
	assert.Equal(t, want, c.paymentStatus(self))

	// Details: the request echoed with paymentId, no transactionStatus.
	r := c.get(self)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	details := r.json(t)
	var sent map[string]any
	require.NoError(t, json.Unmarshal(ndctBody(kariBruk, olaBruk, "1250.00"), &sent))
	sent["paymentId"] = got.PaymentID
	sent["_links"] = want["_links"]
	assert.Equal(t, sent, details)

	// Cancelling after SCA is refused.
	r = c.do(http.MethodDelete, self, nil)
	code, _ := r.problem(t)
	assert.Equal(t, []any{405, "CANCELLATION_INVALID"}, []any{r.status, code})

	s.Control().RunBatch()
	want["transactionStatus"] = "ACSC"
	assert.Equal(t, want, c.paymentStatus(self))
	assert.Equal(t, before.Sub(decimal.RequireFromString("1250.00")).String(), balance(s, kariBruk).String())
	assert.Equal(t, olaBefore.Add(decimal.RequireFromString("1250.00")).String(), balance(s, olaBruk).String())

	s.mu.Lock()
	a := s.soleStore().accountByBBAN(kariBruk)
	last := a.transactions[len(a.transactions)-1]
	s.mu.Unlock()
	assert.Equal(t, []any{true, "-1250", "Ola Eksempel", olaBruk, "Hyttetur påske"},
		[]any{last.booked, last.amount.String(), last.creditorName, last.creditorAccount.BBAN, last.remittance})

	ps := s.Control().Payments()
	require.Len(t, ps, 1)
	assert.Equal(t, "ACSC", ps[0].Status)
	assert.Equal(t, "1250.00 NOK", ps[0].Amount.String())

	// The batch does not touch a settled payment again.
	s.Control().RunBatch()
	assert.Equal(t, before.Sub(decimal.RequireFromString("1250.00")).String(), balance(s, kariBruk).String())
}

func TestKnownIssueOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithKnownIssues(false))
	c := newTPPClient(t, s, "No issues TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes())
	self := got.Links["self"].Href
	assert.Equal(t, map[string]any{
		"paymentId":         got.PaymentID,
		"transactionStatus": "RCVD",
		"_links": map[string]any{
			"self":               map[string]any{"href": self, "verbs": []any{"GET", "DELETE"}},
			"status":             map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
			"startAuthorisation": map[string]any{"href": self + "/authorisations", "verbs": []any{"POST"}},
		},
	}, c.paymentStatus(self))
	assert.Equal(t, http.StatusOK, c.get(self).status)
}

func TestSEPAReadableBeforeApproval(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "SEPA TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, validSEPA().Bytes())
	assert.Equal(t, "RCVD", c.statusOf(got.Links["self"].Href))
}

func TestInsufficientFunds(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Funds TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariSpar, external, "150.00"))
	self := got.Links["self"].Href
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	s.Control().RunBatch()
	assert.Equal(t, map[string]any{
		"paymentId":         got.PaymentID,
		"transactionStatus": "ACCP",
		"fundsAvailable":    false,
		"_links": map[string]any{
			"self":   map[string]any{"href": self, "verbs": []any{"GET"}},
			"status": map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
		},
	}, c.paymentStatus(self))
	assert.Equal(t, "100", balance(s, kariSpar).String())

	// Money arrives; the next batch settles the payment.
	s.mu.Lock()
	s.soleStore().book(s.soleStore().accountByBBAN(kariSpar), transaction{amount: decimal.RequireFromString("60.00"), bookingDate: rules.Today(s.now())})
	s.mu.Unlock()
	s.Control().RunBatch()
	st := c.paymentStatus(self)
	assert.Equal(t, "ACSC", st["transactionStatus"])
	assert.NotContains(t, st, "fundsAvailable")
	assert.Equal(t, "10", balance(s, kariSpar).String())
}

func TestFutureDatePending(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Pending TPP")
	date := clock.Now().AddDate(0, 0, 3).Format(time.DateOnly)
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("requestedExecutionDate", date),
		set("debtorAccount.iban", ibanOf(kariBruk))))
	self := got.Links["self"].Href
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	assert.Equal(t, map[string]any{
		"paymentId":         got.PaymentID,
		"transactionStatus": "PDNG",
		"_links": map[string]any{
			"self":   map[string]any{"href": self, "verbs": []any{"GET"}},
			"status": map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
		},
	}, c.paymentStatus(self))

	r := c.do(http.MethodDelete, self, nil)
	code, _ := r.problem(t)
	assert.Equal(t, []any{405, "CANCELLATION_INVALID"}, []any{r.status, code})
	r = c.do(http.MethodPost, self+"/authorisations", nil, c.payHeaders()...)
	code, _ = r.problem(t)
	assert.Equal(t, []any{409, "STATUS_INVALID"}, []any{r.status, code})

	s.Control().RunBatch()
	assert.Equal(t, "PDNG", c.statusOf(self), "not due yet")
	clock.Add(72 * time.Hour)
	s.Control().RunBatch()
	assert.Equal(t, "ACSC", c.statusOf(self))
	// 100.00 EUR at the sandbox rate of 11.50 NOK.
	s.mu.Lock()
	a := s.soleStore().accountByBBAN(kariBruk)
	last := a.transactions[len(a.transactions)-1]
	s.mu.Unlock()
	assert.Equal(t, "-1150", last.amount.String())
}

func TestCancelInRCVD(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Cancel TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, validSEPA().Bytes())
	self := got.Links["self"].Href
	r := c.do(http.MethodDelete, self, nil)
	assert.Equal(t, http.StatusNoContent, r.status)
	assert.Empty(t, r.body)
	assert.Equal(t, map[string]any{
		"paymentId":         got.PaymentID,
		"transactionStatus": "CANC",
		"_links": map[string]any{
			"self":   map[string]any{"href": self, "verbs": []any{"GET"}},
			"status": map[string]any{"href": self + "/status", "verbs": []any{"GET"}},
		},
	}, c.paymentStatus(self))
	r = c.do(http.MethodDelete, self, nil)
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	// The pending SCA finds nothing to approve.
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	assert.Equal(t, "CANC", c.statusOf(self))
}

func TestStartAuthorisationAndReject(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Authorisation TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk))))
	self := got.Links["self"].Href

	// The PSU cancels: the payment stays RCVD and a new SCA can start.
	cb, err := s.Control().Reject(t.Context(), got.Links["scaRedirect"].Href)
	require.NoError(t, err)
	assert.Equal(t, "SCA_INVALID", cb.Query().Get("code"))
	assert.Equal(t, "RCVD", c.statusOf(self))

	r := c.do(http.MethodPost, got.Links["startAuthorisation"].Href, nil, c.payHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	href := r.scaRedirect(t)
	assert.Equal(t, map[string]any{
		"scaStatus": "started",
		"_links":    map[string]any{"scaRedirect": map[string]any{"href": href, "verbs": []any{"GET"}}},
	}, r.json(t))
	approve(t, s, href, CustomerKari)
	assert.Equal(t, "ACTC", c.statusOf(self))
}

func TestWrongPSURejectsPayment(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Wrong PSU TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk))))
	cb, err := s.Control().Authorize(t.Context(), got.Links["scaRedirect"].Href, CustomerOla)
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "PAYMENT_FAILED", cb.Query().Get("code"))
	assert.Equal(t, "RJCT", c.statusOf(got.Links["self"].Href))
}

func TestCorporatePayment(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Corporate TPP")
	fDrift := makeBBAN("1812921560")
	cb := c.pisLogin("corp-pis", func(href string) (*url.URL, error) {
		return s.Control().AuthorizeCorporate(t.Context(), href, CustomerFjordlys, "")
	})
	assert.Equal(t, "CORPORATE", cb.Query().Get("context"))
	corp := []reqOpt{hdr("TPP-Session-ID", "corp-pis"), hdr("PSU-ID", cb.Query().Get("psu-id")),
		hdr("PSU-Corporate-ID", cb.Query().Get("psu-corporate-id")), hdr("PSU-Context", "CORPORATE")}
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(fDrift, external, "5000.00"), corp...)
	cb, err := s.Control().AuthorizeCorporate(t.Context(), got.Links["scaRedirect"].Href, CustomerFjordlys, "")
	require.NoError(t, err)
	assert.Equal(t, "CORPORATE", cb.Query().Get("context"))
	s.Control().RunBatch()
	assert.Equal(t, "ACSC", c.statusOf(got.Links["self"].Href))
}

func TestCreditorUnknownRejected(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Reject TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, inBankBad, "10.00"))
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	before := balance(s, kariBruk)
	s.Control().RunBatch()
	assert.Equal(t, "RJCT", c.statusOf(got.Links["self"].Href))
	assert.Equal(t, before.String(), balance(s, kariBruk).String())
}

// TestCardAccountDebtor: an NDCT pays from a card account whose
// relatedAccount (from the card account details) is
// debtorAccount.other.identification (docs/interface.md section 2.3a);
// the card's resourceId, masked PAN or the owner's BBAN do not identify
// it, and another customer cannot pay from it.
func TestCardAccountDebtor(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Card TPP")
	sid := uuid.NewString()
	psu := psuHeaders(c.login(CustomerKari, sid), sid)
	r := c.get("/v1/card-accounts", psu...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var list struct {
		CardAccounts []cardJSON `json:"cardAccounts"`
	}
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list.CardAccounts, 1)
	assert.Empty(t, list.CardAccounts[0].RelatedAccount, "the list carries no relatedAccount, as the platform's (card-accounts.json)")
	r = c.get("/v1/card-accounts/"+list.CardAccounts[0].ResourceID, psu...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var details struct {
		CardAccount cardJSON `json:"cardAccount"`
	}
	require.NoError(t, json.Unmarshal(r.body, &details))
	card := details.CardAccount
	require.NotEmpty(t, card.RelatedAccount, "the details carry relatedAccount")

	pay := func(identification, amount string) created {
		return c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, amount, del("debtorAccount.bban"),
			set("debtorAccount.other", map[string]any{"identification": identification, "schemeNameProprietary": "creditCardAccount"})))
	}
	statusHeld := func(id string) string {
		for _, p := range s.Control().Payments() {
			if p.ID == id {
				return p.Status
			}
		}
		return ""
	}
	for name, ref := range map[string]string{"resourceId": card.ResourceID, "masked PAN": card.MaskedPan, "owner's BBAN": kariBruk} {
		got := pay(ref, "500.00")
		cb, err := s.Control().Authorize(t.Context(), got.Links["scaRedirect"].Href, CustomerKari)
		require.ErrorIs(t, err, ErrSCAFailed, name)
		assert.Equal(t, "PAYMENT_FAILED", cb.Query().Get("code"), name)
		assert.Equal(t, "RJCT", statusHeld(got.PaymentID), name)
	}

	// Another customer cannot pay from Kari's card.
	got := pay(card.RelatedAccount, "400.00")
	_, err := s.Control().Authorize(t.Context(), got.Links["scaRedirect"].Href, CustomerOla)
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "RJCT", statusHeld(got.PaymentID))

	got = pay(card.RelatedAccount, "500.00")
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	s.Control().RunBatch()
	assert.Equal(t, "ACSC", c.statusOf(got.Links["self"].Href))
	s.mu.Lock()
	booked := ""
	if k := s.soleStore().cardByReference(card.RelatedAccount); k != nil {
		booked = k.booked.String()
	}
	s.mu.Unlock()
	assert.Equal(t, "-7374.6", booked)
}

func TestPeriodicNotInBatch(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Periodic TPP")
	b := ndctBody(kariBruk, external, "10.00", set("startDate", rules.BankDate(clock.Now())), set("frequency", "Weekly"))
	got := c.createPayment("/v1/periodic-payments/"+rules.ProductNDCT, b)
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	s.Control().RunBatch()
	assert.Equal(t, "ACTC", c.statusOf(got.Links["self"].Href))
}

func TestPaymentIDEscapingAndOwnership(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Owner TPP")
	other := newTPPClient(t, s, "Intruder TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, validSEPA().Bytes())
	self := got.Links["self"].Href
	require.Contains(t, self, "enc!!")
	escaped := strings.Replace(self, "!", "%21", 2)
	assert.Equal(t, "RCVD", c.statusOf(self))
	assert.Equal(t, "RCVD", c.statusOf(escaped))
	assert.Equal(t, http.StatusOK, c.get(escaped).status)

	for _, r := range []*response{
		other.get(self + "/status"), other.get(self), other.do(http.MethodDelete, self, nil),
		c.get("/v1/payments/" + rules.ProductNDCT + "/" + got.PaymentID + "/status"), // wrong product
		c.get("/v1/payments/" + rules.ProductSEPA + "/enc!!nope/status"),
	} {
		code, _ := r.problem(t)
		assert.Equal(t, []any{404, "RESOURCE_UNKNOWN"}, []any{r.status, code}, string(r.body))
	}
	assert.Equal(t, "RCVD", c.statusOf(self), "the intruder's DELETE changed nothing")
}

func TestScheduledBatch(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC()
	clock := fixedClock(time.Date(start.Year(), start.Month(), start.Day(), 8, 50, 0, 0, time.UTC))
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Schedule TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk))))
	self := got.Links["self"].Href
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)

	clock.Add(9 * time.Minute) // 08:59
	assert.Equal(t, "ACTC", c.statusOf(self))
	clock.Add(2 * time.Minute) // 09:01: the 09:00 run happens on this request
	assert.Equal(t, "ACSC", c.statusOf(self))
}

func TestNextBatch(t *testing.T) {
	t.Parallel()
	oslo := time.FixedZone("CET", 3600)
	day := func(h, m int) time.Time { return time.Date(2026, 11, 23, h, m, 0, 0, oslo) }
	tests := []struct{ at, want time.Time }{
		{day(0, 0), day(6, 0)},
		{day(6, 0), day(9, 0)},
		{day(8, 59), day(9, 0)},
		{day(12, 1), day(15, 0)},
		{day(17, 59), day(18, 0)},
		{day(18, 0), day(24+6, 0)},
		{day(23, 0), day(24+6, 0)},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, nextBatch(tt.at), tt.at.String())
	}
}

func TestConcurrentPayments(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Concurrent TPP")
	c.pisPSU() // before the consent: its SCA in another session would end this one
	psu := c.login(CustomerKari, "conc-session")
	const n = 50
	var payReqs, accReqs []*http.Request
	for i := range n {
		b := ndctBody(kariBruk, external, fmt.Sprintf("%d.00", i+1))
		payReqs = append(payReqs, c.build(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, b, c.payHeaders()...))
		accReqs = append(accReqs, c.build(http.MethodGet, "/v1/accounts", nil, psuHeaders(psu, "conc-session")...))
	}
	statuses := make([]int, 2*n)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := payReqs[i%n]
			if i >= n {
				req = accReqs[i-n]
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i := range 2 * n {
		require.NoError(t, errs[i])
		want := http.StatusCreated
		if i >= n {
			want = http.StatusOK
		}
		assert.Equal(t, want, statuses[i], i)
	}
	ps := s.Control().Payments()
	require.Len(t, ps, n)
	ids := map[string]bool{}
	for _, p := range ps {
		ids[p.ID] = true
	}
	assert.Len(t, ids, n)
}

func FuzzCreatePayment(f *testing.F) {
	s := startServer(f, WithClock(fixedClock(checkToday).Now))
	c := newTPPClient(f, s, "Fuzz TPP")
	for _, tc := range bodyCases[:40] {
		f.Add(tc.Product, "192.0.2.1", tc.Body())
	}
	f.Add("sepa-credit-transfers", "", []byte(`{"instructedAmount":{"amount":1}}`))
	f.Fuzz(func(t *testing.T, product, ip string, data []byte) {
		if len(data) == 0 || !validHeaderValue(product+ip) || strings.ContainsAny(product, "/?#%") {
			return
		}
		cc := *c
		cc.t = t
		req := cc.build(http.MethodPost, "/v1/payments/"+url.PathEscape(product), data, cc.payHeaders(hdr("PSU-IP-Address", ip))...)
		resp, err := cc.hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			require.GreaterOrEqual(t, resp.StatusCode, 400)
			require.Less(t, resp.StatusCode, 500)
		}
	})
}

// validHeaderValue reports whether v can be sent as a header value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return false
		}
	}
	return true
}

func BenchmarkCreatePayment(b *testing.B) {
	s := startServer(b)
	c := newTPPClient(b, s, "Bench TPP")
	body := validSEPA().Bytes()
	b.ReportAllocs()
	for b.Loop() {
		r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA+"?allowLogicalDuplicate=true", body, c.payHeaders()...)
		if r.status != http.StatusCreated {
			b.Fatal(string(r.body))
		}
	}
}

// A single payment's body with a member of a bulk payment ("payments")
// is that single payment: the member is not part of its body and is
// ignored like any unknown member, never read for the amount or the
// creditor.
func TestSinglePaymentIgnoresBulkEntries(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Stray member TPP")
	b := validSEPA()
	b["payments"] = []any{map[string]any{
		"instructedAmount": map[string]any{"amount": "5.00", "currency": "NOK"},
		"creditorAccount":  map[string]any{"bban": "12345678903"},
		"creditorName":     "Someone Else",
	}}
	want := validSEPA()["instructedAmount"].(map[string]any)
	c.createPayment("/v1/payments/"+rules.ProductSEPA, b.Bytes())
	ps := s.Control().Payments()
	require.Len(t, ps, 1)
	assert.Equal(t, want["amount"], ps[0].Amount.Value.StringFixed(2))
	assert.Equal(t, want["currency"], ps[0].Amount.Currency)
	assert.Equal(t, validSEPA()["creditorName"], ps[0].CreditorName)
}
