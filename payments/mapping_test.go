package payments_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/signing"
)

// assertPaymentPost checks the path, query and headers of a payment
// create (docs/interface.md section 4.2, 4.3, 5) and that the body is the golden file.
func assertPaymentPost(t *testing.T, got *captured, path, query, golden string) {
	t.Helper()
	require.NotNil(t, got.req, "the bank received the request")
	assert.Equal(t, http.MethodPost, got.req.Method)
	assert.Equal(t, path, got.req.URL.EscapedPath())
	assert.Equal(t, query, got.req.URL.RawQuery)
	h := got.req.Header
	assert.Equal(t, "amount-as-string", h.Get("X-Accept-Fix"))
	assert.Equal(t, signing.Digest(got.body), h.Get("Digest"), "Digest of the exact body")
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, sessionID, h.Get("TPP-Session-ID"))
	assert.Equal(t, redirectURI, h.Get("TPP-Redirect-URI"))
	assert.Equal(t, psuIP, h.Get("PSU-IP-Address"))
	assert.Equal(t, psuID, h.Get("PSU-ID"))
	assert.Equal(t, "PRIVATE", h.Get("PSU-Context"))
	assert.NotEmpty(t, h.Get("X-Request-ID"))
	assert.NotEmpty(t, h.Get("Date"))
	sig, err := signing.ParseSignature(h.Get("Signature"))
	require.NoError(t, err)
	assert.Contains(t, sig.Headers, "digest")
	assert.Equal(t, string(bytes.TrimSpace(testdata(t, golden))), string(got.body), "exact JSON body")
}

func TestCreateNorwegianDomesticMapping(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []client.RequestOption
		query string
	}{
		{name: "plain", query: ""},
		{name: "allow logical duplicate", opts: []client.RequestOption{payments.AllowLogicalDuplicate()}, query: "allowLogicalDuplicate=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")

			init, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT(), append(psuPresent(), tc.opts...)...)
			require.NoError(t, err)
			assertPaymentPost(t, got, "/api/v1/payments/norwegian-domestic-credit-transfers", tc.query, "ndct-request.golden.json")

			fee := money.MustParse("3.00", "NOK")
			self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
			assert.Equal(t, &payments.Initiation{
				PaymentID:               ndctID,
				TransactionStatus:       payments.StatusRCVD,
				TransactionFees:         &fee,
				TransactionFeeIndicator: boolPtr(true),
				Links: client.Links{
					"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
					"status":             {Href: self + "/status", Verbs: []string{"GET"}},
					"scaRedirect":        {Href: "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=c8e1b35e-0b5f-42e2-9d0b-14d85387e721&context=PRIVATE", Verbs: []string{"GET"}},
					"startAuthorisation": {Href: self + "/authorisations", Verbs: []string{"POST"}},
				},
				Product: payments.ProductNorwegianDomestic,
				Service: payments.ServiceSingle,
			}, metatest.Strip(init))
			assert.Equal(t, "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=c8e1b35e-0b5f-42e2-9d0b-14d85387e721&context=PRIVATE", init.SCARedirect())
		})
	}
}

func TestCreateSEPAMapping(t *testing.T) {
	svc := newMockService(t)
	got := respond(t, http.MethodPost, "/v1/payments/sepa-credit-transfers", http.StatusCreated, "payment-sepa-create-201.json")

	init, err := svc.CreateSEPA(t.Context(), validSEPA(), psuPresent()...)
	require.NoError(t, err)
	assertPaymentPost(t, got, "/api/v1/payments/sepa-credit-transfers", "", "sepa-request.golden.json")

	fee := money.MustParse("2.00", "EUR")
	self := "/v1/payments/sepa-credit-transfers/" + sepaID
	assert.Equal(t, &payments.Initiation{
		PaymentID:               sepaID,
		TransactionStatus:       payments.StatusRCVD,
		TransactionFees:         &fee,
		TransactionFeeIndicator: boolPtr(true),
		Links: client.Links{
			"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
			"status":             {Href: self + "/status", Verbs: []string{"GET"}},
			"scaRedirect":        {Href: "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=64ee3eeb-b33a-4d73-bca8-b2504cd1a2cb&context=PRIVATE", Verbs: []string{"GET"}},
			"startAuthorisation": {Href: self + "/authorisations", Verbs: []string{"POST"}},
		},
		Product: payments.ProductSEPA,
		Service: payments.ServiceSingle,
	}, metatest.Strip(init))
}

func TestCreateOtherProductsPaths(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create func(*payments.Service, *testing.T) (*payments.Initiation, error)
		path   string
	}{
		{"single cross-border", func(s *payments.Service, t *testing.T) (*payments.Initiation, error) {
			return s.Create(t.Context(), payments.ProductCrossBorder, map[string]string{"creditorName": "X"}, psuPresent()...)
		}, "/v1/payments/cross-border-credit-transfers"},
		{"periodic", func(s *payments.Service, t *testing.T) (*payments.Initiation, error) {
			return s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, map[string]string{"startDate": "2025-03-17", "frequency": "Monthly"}, psuPresent()...)
		}, "/v1/periodic-payments/norwegian-domestic-credit-transfers"},
		{"bulk", func(s *payments.Service, t *testing.T) (*payments.Initiation, error) {
			return s.CreateBulk(t.Context(), payments.ProductInstantNorwegianDomestic, map[string]string{"x": "y"}, psuPresent()...)
		}, "/v1/bulk-payments/instant-norwegian-domestic-credit-transfers-straks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, tc.path, http.StatusCreated, "payment-ndct-create-201.json")
			init, err := tc.create(svc, t)
			require.NoError(t, err)
			require.NotNil(t, got.req)
			assert.Equal(t, "/api"+tc.path, got.req.URL.EscapedPath())
			assert.Equal(t, ndctID, init.PaymentID)
			assert.NotEmpty(t, got.req.Header.Get("Digest"))
		})
	}
}

func TestCreateGenericValidatesTypedBody(t *testing.T) {
	svc := newMockService(t)
	p := validNDCT()
	p.CreditorAccount.BBAN = "91026527437" // wrong check digit
	_, err := svc.Create(t.Context(), payments.ProductInstantNorwegianDomestic, p, psuPresent()...)
	require.ErrorIs(t, err, client.ErrValidation)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "creditorAccount.bban", ve.Field)
	assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing sent")
}

func TestStatusMapping(t *testing.T) {
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	links := client.Links{
		"self":   {Href: self, Verbs: []string{"GET"}},
		"status": {Href: self + "/status", Verbs: []string{"GET"}},
	}
	for _, tc := range []struct {
		file        string
		want        payments.StatusResponse
		unavailable bool
		final       bool
	}{
		{"payment-status-actc.json", payments.StatusResponse{PaymentID: ndctID, TransactionStatus: payments.StatusACTC, Links: links}, false, false},
		{"payment-status-accp-funds-unavailable.json", payments.StatusResponse{PaymentID: ndctID, TransactionStatus: payments.StatusACCP, FundsAvailable: boolPtr(false), Links: links}, true, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodGet, self+"/status", http.StatusOK, tc.file)
			st, err := svc.Status(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}, psuPresent()...)
			require.NoError(t, err)
			require.NotNil(t, got.req)
			assert.Equal(t, "/api"+self+"/status", got.req.URL.EscapedPath(), "the id's ! is kept, not escaped")
			assert.Empty(t, got.req.Header.Get("Digest"), "no body, no Digest")
			assert.Equal(t, "amount-as-string", got.req.Header.Get("X-Accept-Fix"))
			assert.Equal(t, &tc.want, metatest.Strip(st))
			assert.Equal(t, tc.unavailable, st.FundsUnavailable())
			assert.Equal(t, tc.final, st.TransactionStatus.IsFinal())
			assert.True(t, st.TransactionStatus.IsAccepted())
		})
	}
}

func TestStatusAtFollowsTheLink(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
	got := respond(t, http.MethodGet, "/v1/payments/norwegian-domestic-credit-transfers/"+ndctID+"/status", http.StatusOK, "payment-status-actc.json")

	init, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT(), psuPresent()...)
	require.NoError(t, err)
	st, err := svc.StatusAt(t.Context(), init.Links.Href(client.LinkStatus), psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	assert.Equal(t, "/api/v1/payments/norwegian-domestic-credit-transfers/"+ndctID+"/status", got.req.URL.EscapedPath())

	// A link to another host is never followed with a signed request.
	before := httpmock.GetTotalCallCount()
	_, err = svc.StatusAt(t.Context(), "https://evil.example/api/v1/payments/x/status")
	require.ErrorIs(t, err, client.ErrForeignHost)
	_, err = svc.StatusAt(t.Context(), "")
	require.ErrorIs(t, err, client.ErrValidation)
	assert.Equal(t, before, httpmock.GetTotalCallCount())
}

func TestGetMapping(t *testing.T) {
	svc := newMockService(t)
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	got := respond(t, http.MethodGet, self, http.StatusOK, "payment-ndct-details.json")
	d, err := svc.Get(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, "/api"+self, got.req.URL.EscapedPath())
	want := validNDCT()
	assert.Equal(t, &payments.Details{
		PaymentID:                         ndctID,
		InstructedAmount:                  want.InstructedAmount,
		CreditorName:                      want.CreditorName,
		CreditorAccount:                   want.CreditorAccount,
		CreditorAddress:                   want.CreditorAddress,
		DebtorAccount:                     want.DebtorAccount,
		RemittanceInformationUnstructured: want.RemittanceInformationUnstructured,
		RequestedExecutionDate:            want.RequestedExecutionDate,
		Links: client.Links{
			"self":   {Href: self, Verbs: []string{"GET"}},
			"status": {Href: self + "/status", Verbs: []string{"GET"}},
		},
	}, metatest.Strip(d))
	assert.Empty(t, d.TransactionStatus, "the platform sends no status with the details")

	got = respond(t, http.MethodGet, "/v1/payments/sepa-credit-transfers/"+sepaID, http.StatusOK, "payment-ndct-details.json")
	_, err = svc.GetAt(t.Context(), "/v1/payments/sepa-credit-transfers/"+sepaID)
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/payments/sepa-credit-transfers/"+sepaID, got.req.URL.EscapedPath())
}

func TestStartAuthorisationMapping(t *testing.T) {
	svc := newMockService(t)
	path := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID + "/authorisations"
	got := respond(t, http.MethodPost, path, http.StatusCreated, "payment-start-authorisation-201.json")
	a, err := svc.StartAuthorisation(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, http.MethodPost, got.req.Method)
	assert.Equal(t, "/api"+path, got.req.URL.EscapedPath())
	assert.Empty(t, got.body)
	href := "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=cd97b31d-7eed-400a-85cb-6ab9f8e64673&context=PRIVATE"
	assert.Equal(t, &payments.Authorisation{ScaStatus: "started", Links: client.Links{"scaRedirect": {Href: href, Verbs: []string{"GET"}}}}, metatest.Strip(a))
	assert.Equal(t, href, a.SCARedirect())

	_, err = svc.StartAuthorisationAt(t.Context(), path, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, 2, httpmock.GetTotalCallCount())
}

func TestCancelMapping(t *testing.T) {
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	t.Run("204", func(t *testing.T) {
		svc := newMockService(t)
		got := respond(t, http.MethodDelete, self, http.StatusNoContent, "")
		c, err := svc.Cancel(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}, psuPresent()...)
		require.NoError(t, err)
		assert.Equal(t, http.MethodDelete, got.req.Method)
		assert.Equal(t, "/api"+self, got.req.URL.EscapedPath())
		assert.Equal(t, &payments.Cancellation{StatusCode: http.StatusNoContent}, metatest.Strip(c))
	})
	t.Run("202 with a body", func(t *testing.T) {
		svc := newMockService(t)
		httpmock.RegisterResponder(http.MethodDelete, baseURL+self, httpmock.NewStringResponder(http.StatusAccepted,
			`{"transactionStatus":"ACTC","_links":{"startAuthorisation":{"href":"`+self+`/cancellation-authorisations","verbs":["POST"]}}}`))
		c, err := svc.CancelAt(t.Context(), self, psuPresent()...)
		require.NoError(t, err)
		assert.Equal(t, &payments.Cancellation{StatusCode: http.StatusAccepted, TransactionStatus: payments.StatusACTC,
			Links: client.Links{"startAuthorisation": {Href: self + "/cancellation-authorisations", Verbs: []string{"POST"}}}}, metatest.Strip(c))
	})
}

func TestBankErrors(t *testing.T) {
	for _, tc := range []struct {
		file, code, path string
		is               error
	}{
		{"error-400-format-error.json", client.CodeFormatError, "creditorAccount.bban", nil},
		{"error-400-kid-invalid.json", client.CodeKIDInvalid, "remittanceInformationStructured.reference", client.ErrKIDInvalid},
	} {
		t.Run(tc.file, func(t *testing.T) {
			svc := newMockService(t)
			respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusBadRequest, tc.file)
			// The SDK's own checks are off, so the bank's answer is seen.
			_, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT(), append(psuPresent(), client.WithoutValidation())...)
			var e *client.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, http.StatusBadRequest, e.StatusCode)
			assert.Equal(t, "payments.CreateNorwegianDomestic", e.Operation)
			require.Len(t, e.Messages, 1)
			assert.Equal(t, tc.code, e.Messages[0].Code)
			assert.Equal(t, tc.path, e.Messages[0].Path)
			assert.Equal(t, "ERROR", e.Messages[0].Category)
			assert.NotEmpty(t, e.RequestID)
			assert.False(t, errors.Is(err, client.ErrOutcomeUnknown), "a 400 is a clear answer")
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

func TestValidationStopsTheRequest(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
	p := validNDCT()
	p.CreditorName = ""
	p.InstructedAmount = money.Amount{}
	_, err := svc.CreateNorwegianDomestic(t.Context(), p, psuPresent()...)
	require.ErrorIs(t, err, client.ErrValidation)
	assert.Contains(t, err.Error(), "payments.CreateNorwegianDomestic")
	assert.Contains(t, err.Error(), "creditorName")
	assert.Contains(t, err.Error(), "instructedAmount")
	assert.Equal(t, 0, httpmock.GetTotalCallCount())

	_, err = svc.CreateNorwegianDomestic(t.Context(), nil)
	require.ErrorIs(t, err, client.ErrValidation)
	_, err = svc.Create(t.Context(), "", validNDCT())
	require.ErrorIs(t, err, client.ErrValidation)
	assert.Equal(t, 0, httpmock.GetTotalCallCount())

	// WithoutValidation sends it anyway: the bank decides.
	p = validNDCT()
	p.CreditorName = ""
	_, err = svc.CreateNorwegianDomestic(t.Context(), p, append(psuPresent(), client.WithoutValidation())...)
	require.NoError(t, err)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

// A payment given by value to Create is validated as one given by pointer.
func TestCreateValidatesValues(t *testing.T) {
	svc := newMockService(t)
	p := *validSEPA()
	p.CreditorAccount.IBAN = "DE89370400440532013001"
	_, err := svc.Create(t.Context(), payments.ProductSEPA, p, psuPresent()...)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "creditorAccount.iban", ve.Field)
	assert.Equal(t, 0, httpmock.GetTotalCallCount())
}

// Every recorded answer of the payment endpoints decodes into its SDK
// type and encodes back to the same members: nothing the bank sent (a
// fee, fundsAvailable, a link's verbs, the echoed payment) is dropped
// by a type that lacks a field for it.
func TestRecordedAnswersKeepEveryMember(t *testing.T) {
	t.Parallel()
	for file, v := range map[string]any{
		"payment-ndct-create-201.json":               new(payments.Initiation),
		"payment-sepa-create-201.json":               new(payments.Initiation),
		"payment-ndct-details.json":                  new(payments.Details),
		"payment-status-actc.json":                   new(payments.StatusResponse),
		"payment-status-accp-funds-unavailable.json": new(payments.StatusResponse),
		"payment-start-authorisation-201.json":       new(payments.Authorisation),
	} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			doc := testdata(t, file)
			require.NoError(t, json.Unmarshal(doc, v))
			enc, err := json.Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, string(doc), string(enc))
		})
	}
}
