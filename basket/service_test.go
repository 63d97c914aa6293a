package basket_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// The unit tests below use httpmock.ActivateNonDefault, which installs
// httpmock's package-global mock transport: they share it, so they do not
// run in parallel. The emulator tests do.

// sent is one request as the bank received it.
type sent struct {
	Method string
	Path   string // escaped, as on the wire
	Body   string
	Header http.Header
}

// recorder answers every request with status and body and keeps what was
// sent.
type recorder struct {
	mu   sync.Mutex
	reqs []sent
}

func (r *recorder) responder(status int, body []byte) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		var b []byte
		if req.Body != nil {
			b, _ = io.ReadAll(req.Body)
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, sent{Method: req.Method, Path: req.URL.EscapedPath(), Body: string(b), Header: req.Header.Clone()})
		r.mu.Unlock()
		resp := httpmock.NewBytesResponse(status, body)
		if len(body) > 0 {
			resp.Header.Set("Content-Type", "application/json")
		}
		return resp, nil
	}
}

func (r *recorder) only(t *testing.T) sent {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Len(t, r.reqs, 1)
	return r.reqs[0]
}

const basketURL = baseURL + "/v1/signing-baskets"

func TestCreateOnTheWire(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodPost, basketURL, rec.responder(http.StatusCreated, doc(t, "signing-basket-create-201.json")))

	ids := []string{docPayment1, docPayment2}
	got, err := svc.Create(t.Context(), ids, basketOpts()...)
	require.NoError(t, err)

	req := rec.only(t)
	assert.Equal(t, http.MethodPost, req.Method)
	assert.Equal(t, "/api/v1/signing-baskets", req.Path)
	assert.Equal(t, `{"paymentIds":["`+docPayment1+`","`+docPayment2+`"]}`, req.Body)
	assert.Contains(t, req.Header.Get("x-accept-fix"), "amount-as-string")
	assert.Equal(t, "pis-session-1", req.Header.Get("TPP-Session-ID"))
	assert.Equal(t, "https://tpp.example/cb?state=basket", req.Header.Get("TPP-Redirect-URI"))
	assert.Equal(t, psuID, req.Header.Get("PSU-ID"))
	assert.Equal(t, "192.0.2.10", req.Header.Get("PSU-IP-Address"))
	assert.NotEmpty(t, req.Header.Get("Digest"))
	assert.NotEmpty(t, req.Header.Get("Signature"))

	self := "/v1/signing-baskets/" + docBasketID
	assert.Equal(t, &basket.Basket{
		BasketID:          docBasketID,
		TransactionStatus: payments.StatusRCVD,
		PaymentIDs:        ids,
		Links: client.Links{
			"self":               {Href: self, Verbs: []string{"GET", "DELETE"}},
			"status":             {Href: self + "/status", Verbs: []string{"GET"}},
			"startAuthorisation": {Href: self + "/authorisations", Verbs: []string{"POST"}},
		},
	}, metatest.Strip(got))
	assert.Empty(t, got.SCARedirect(), "the literal create answer has no scaRedirect")

	// The ids of the answer are a copy: changing the caller's slice does
	// not change the basket.
	ids[0] = "changed"
	assert.Equal(t, docPayment1, got.PaymentIDs[0])
}

func TestGetOnTheWire(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, rec.responder(http.StatusOK, doc(t, "signing-basket-get.json")))

	got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	req := rec.only(t)
	assert.Equal(t, http.MethodGet, req.Method)
	assert.Equal(t, "/api/v1/signing-baskets/"+docBasketID, req.Path, "the id keeps its ! and = on the wire")
	assert.Empty(t, req.Body)

	self := "/v1/signing-baskets/" + docBasketID
	assert.Equal(t, &basket.Basket{
		BasketID:          docBasketID,
		TransactionStatus: payments.StatusACTC,
		PaymentIDs:        []string{docPayment1, docPayment2},
		Links: client.Links{
			"self":   {Href: self, Verbs: []string{"GET"}},
			"status": {Href: self + "/status", Verbs: []string{"GET"}},
		},
	}, metatest.Strip(got))
	self2, ok := got.Links.Get(client.LinkSelf)
	require.True(t, ok)
	assert.False(t, self2.Allows(http.MethodDelete), "a signed basket can no longer be deleted")
}

func TestStatusOnTheWire(t *testing.T) {
	for _, st := range []payments.TransactionStatus{payments.StatusRCVD, payments.StatusACTC, payments.StatusPATC, payments.StatusRJCT} {
		t.Run(string(st), func(t *testing.T) {
			svc := mockBank(t)
			var rec recorder
			httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID+"/status",
				rec.responder(http.StatusOK, []byte(`{"transactionStatus":"`+st+`"}`)))
			got, err := svc.Status(t.Context(), docBasketID)
			require.NoError(t, err)
			assert.Equal(t, "/api/v1/signing-baskets/"+docBasketID+"/status", rec.only(t).Path)
			assert.Equal(t, &basket.StatusResponse{TransactionStatus: st}, metatest.Strip(got))
		})
	}
}

func TestDeleteOnTheWire(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodDelete, basketURL+"/"+docBasketID, rec.responder(http.StatusNoContent, nil))
	require.NoError(t, svc.Delete(t.Context(), docBasketID, basketOpts()...))
	req := rec.only(t)
	assert.Equal(t, http.MethodDelete, req.Method)
	assert.Equal(t, "/api/v1/signing-baskets/"+docBasketID, req.Path)
}

func TestStartAuthorisationOnTheWire(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodPost, basketURL+"/"+docBasketID+"/authorisations",
		rec.responder(http.StatusCreated, doc(t, "payment-start-authorisation-201.json")))
	got, err := svc.StartAuthorisation(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	req := rec.only(t)
	assert.Equal(t, "/api/v1/signing-baskets/"+docBasketID+"/authorisations", req.Path)
	assert.Empty(t, req.Body)
	assert.Equal(t, "started", got.ScaStatus)
	assert.Equal(t, "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=cd97b31d-7eed-400a-85cb-6ab9f8e64673&context=PRIVATE",
		got.SCARedirect())
}

func TestCreateReferenceMixInvalid(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodPost, basketURL, rec.responder(http.StatusBadRequest, doc(t, "error-400-reference-mix-invalid.json")))

	_, err := svc.Create(t.Context(), []string{docPayment1, docPayment2}, basketOpts()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "basket.Create", e.Operation)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.True(t, e.HasCode(client.CodeReferenceMixInvalid))
	assert.Equal(t, []client.TPPMessage{{Category: "ERROR", Code: "REFERENCE_MIX_INVALID", Path: "paymentIds[1]",
		Text: "Bulk and periodic payments cannot be added to a signing basket."}}, e.Messages)
	assert.NotEmpty(t, e.RequestID)
	assert.NotContains(t, err.Error(), psuID)
	assert.Len(t, rec.reqs, 1, "a 400 is not retried")
}

// A 5xx answer to the create POST is an unknown outcome and the request is
// not sent again: the basket may exist.
func TestCreateNotRepeated(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodPost, basketURL,
		rec.responder(http.StatusServiceUnavailable, []byte(`{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR"}]}`)))
	_, err := svc.Create(t.Context(), []string{docPayment1}, basketOpts()...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())

}

// Reads and starting an authorisation (which moves no money) are
// repeatable: a 503 or 502 is retried and the second answer used.
func TestRetriesFollowRepeatability(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID+"/status",
		rec.responder(http.StatusServiceUnavailable, nil).Then(rec.responder(http.StatusOK, []byte(`{"transactionStatus":"PATC"}`))))
	got, err := svc.Status(t.Context(), docBasketID)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusPATC, got.TransactionStatus)
	assert.Equal(t, 2, httpmock.GetTotalCallCount())

	httpmock.ZeroCallCounters()
	httpmock.RegisterResponder(http.MethodPost, basketURL+"/"+docBasketID+"/authorisations",
		rec.responder(http.StatusBadGateway, nil).Then(rec.responder(http.StatusCreated, doc(t, "payment-start-authorisation-201.json"))))
	// Starting an authorisation is not repeated once it may have reached
	// the bank: each one that arrives is a new authorisation.
	_, err = svc.StartAuthorisation(t.Context(), docBasketID, basketOpts()...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
	auth, err := svc.StartAuthorisation(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err, "started again deliberately")
	assert.NotEmpty(t, auth.SCARedirect())
	assert.Equal(t, 2, httpmock.GetTotalCallCount())
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "enc!!payment-" + strings.Repeat("x", i+1)
	}
	return out
}

func TestCreateValidation(t *testing.T) {
	noPSU := []client.RequestOption{client.WithTPPSessionID("s"), client.WithRedirectURI("https://tpp.example/cb")}
	tests := []struct {
		name   string
		ids    []string
		opts   []client.RequestOption
		field  string
		reason string
	}{
		{"11 payments", ids(11), basketOpts(), "paymentIds", "11 payments; a signing basket holds at most 10"},
		{"no payments", []string{}, basketOpts(), "paymentIds", "at least one payment"},
		{"nil", nil, basketOpts(), "paymentIds", "at least one payment"},
		{"duplicate", []string{docPayment1, docPayment2, docPayment1}, basketOpts(), "paymentIds", "entry 2 repeats entry 0"},
		{"empty id", []string{docPayment1, ""}, basketOpts(), "paymentIds", "entry 1 is empty"},
		{"no PSU", []string{docPayment1}, noPSU, "PSU-ID", "header required by basket.Create; set it with client.WithPSU (ID)"},
		{"no session", []string{docPayment1}, []client.RequestOption{client.WithRedirectURI("https://tpp.example/cb"),
			client.WithPSU(client.PSU{ID: psuID, IPAddress: "192.0.2.10"})}, "TPP-Session-ID", "client.WithTPPSessionID"},
		{"no redirect", []string{docPayment1}, []client.RequestOption{client.WithTPPSessionID("s"),
			client.WithPSU(client.PSU{ID: psuID, IPAddress: "192.0.2.10"})}, "TPP-Redirect-URI", "client.WithRedirectURI"},
		{"PSU not present", []string{docPayment1}, []client.RequestOption{client.WithTPPSessionID("s"), client.WithRedirectURI("https://tpp.example/cb"),
			client.WithPSU(client.PSU{ID: psuID})}, "PSU-IP-Address", "client.WithPSU (IPAddress)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mockBank(t)
			if tt.field == "TPP-Redirect-URI" {
				svc = mockBankNoRedirect(t)
			}
			httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated, `{}`))

			_, err := svc.Create(t.Context(), tt.ids, tt.opts...)
			require.ErrorIs(t, err, client.ErrValidation)
			require.ErrorIs(t, err, client.ErrNotSent)
			var ve *client.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.Contains(t, ve.Reason, tt.reason)
			assert.NotContains(t, err.Error(), docPayment1, "errors name positions, not ids")
			assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing is sent")
		})
	}
}

// WithoutValidation skips the check of the ids, not the headers
// docs/interface.md section 4.1 requires: a basket without PSU-ID,
// PSU-IP-Address or TPP-Session-ID is refused before sending, each missing
// header named with the option that sets it.
func TestCreateRequiresHeadersWithoutValidation(t *testing.T) {
	svc := mockBank(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated, `{"basketId":"b1","transactionStatus":"RCVD"}`))

	_, err := svc.Create(t.Context(), []string{docPayment1}, client.WithoutValidation())
	require.ErrorIs(t, err, client.ErrNotSent)
	var ns *client.NotSentError
	require.ErrorAs(t, err, &ns)
	assert.Equal(t, "basket.Create", ns.Operation)
	var joined interface{ Unwrap() []error }
	require.ErrorAs(t, err, &joined)
	reasons := map[string]string{}
	for _, e := range joined.Unwrap() {
		var ve *client.ValidationError
		require.ErrorAs(t, e, &ve)
		reasons[ve.Field] = ve.Reason
	}
	assert.Len(t, reasons, 3)
	assert.Contains(t, reasons["TPP-Session-ID"], "client.WithTPPSessionID")
	assert.Contains(t, reasons["PSU-ID"], "client.WithPSU (ID)")
	assert.Contains(t, reasons["PSU-IP-Address"], "client.WithPSU (IPAddress)")
	assert.NotContains(t, reasons, "PSU-Context", "a basket does not need PSU-Context")
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")

	got, err := svc.Create(t.Context(), []string{docPayment1}, append(basketOpts(), client.WithoutValidation())...)
	require.NoError(t, err)
	assert.Equal(t, "b1", got.BasketID)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

func TestCreateValidationJoinsAllProblems(t *testing.T) {
	err := basket.ValidatePaymentIDs(append(ids(11), "", ids(1)[0]))
	require.ErrorIs(t, err, client.ErrValidation)
	var reasons []string
	var joined interface{ Unwrap() []error }
	require.ErrorAs(t, err, &joined)
	for _, e := range joined.Unwrap() {
		var ve *client.ValidationError
		require.ErrorAs(t, e, &ve)
		assert.Equal(t, "paymentIds", ve.Field)
		reasons = append(reasons, ve.Reason)
	}
	assert.Equal(t, []string{"13 payments; a signing basket holds at most 10 (docs/interface.md section 8)", "entry 11 is empty", "entry 12 repeats entry 0"}, reasons)
	assert.NoError(t, basket.ValidatePaymentIDs(ids(basket.MaxPayments)))
	assert.NoError(t, basket.ValidatePaymentIDs(ids(1)))
}

func TestCreateWithoutValidationSends(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		body string
	}{
		{"11 payments", ids(11), func() string { b, _ := json.Marshal(map[string]any{"paymentIds": ids(11)}); return string(b) }()},
		{"no payments", nil, `{"paymentIds":[]}`},
		{"duplicate", []string{docPayment1, docPayment1}, `{"paymentIds":["` + docPayment1 + `","` + docPayment1 + `"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := mockBank(t)
			var rec recorder
			httpmock.RegisterResponder(http.MethodPost, basketURL, rec.responder(http.StatusBadRequest,
				[]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"paymentIds"}]}`)))
			// The required headers are there: WithoutValidation skips
			// the check of the ids only.
			_, err := svc.Create(t.Context(), tt.ids, append(basketOpts(), client.WithoutValidation())...)
			var e *client.Error
			require.ErrorAs(t, err, &e, "the bank, not the SDK, refuses it")
			assert.True(t, e.HasCode(client.CodeFormatError))
			assert.Equal(t, tt.body, rec.only(t).Body)
		})
	}
}

func TestBasketIDRefused(t *testing.T) {
	svc := mockBank(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, `{}`))
	calls := map[string]func(id string) error{
		"Get":    func(id string) error { _, err := svc.Get(t.Context(), id, client.WithoutValidation()); return err },
		"Status": func(id string) error { _, err := svc.Status(t.Context(), id, client.WithoutValidation()); return err },
		"Delete": func(id string) error { return svc.Delete(t.Context(), id, client.WithoutValidation()) },
		"StartAuthorisation": func(id string) error {
			_, err := svc.StartAuthorisation(t.Context(), id, client.WithoutValidation())
			return err
		},
	}
	for name, call := range calls {
		for _, id := range []string{"", ".", ".."} {
			err := call(id)
			var ve *client.ValidationError
			require.ErrorAs(t, err, &ve, "%s(%q)", name, id)
			assert.Equal(t, "basketId", ve.Field)
		}
	}
	assert.Equal(t, 0, httpmock.GetTotalCallCount())
}

// An id with characters outside a path segment is escaped, so it cannot
// reach another resource.
func TestBasketIDEscaped(t *testing.T) {
	svc := mockBank(t)
	var rec recorder
	httpmock.RegisterNoResponder(rec.responder(http.StatusOK, []byte(`{"transactionStatus":"RCVD"}`)))
	_, err := svc.Status(t.Context(), "a/../b?c#d")
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/signing-baskets/a%2F..%2Fb%3Fc%23d/status", rec.only(t).Path)
}

func TestNilService(t *testing.T) {
	t.Parallel()
	refused, err := basket.New(nil)
	require.Error(t, err, "New refuses a nil client")
	assert.Nil(t, refused)
	for _, svc := range []*basket.Service{nil, new(basket.Service)} {
		_, err := svc.Create(t.Context(), []string{"a"})
		assert.Error(t, err)
		_, err = svc.Get(t.Context(), "a")
		assert.Error(t, err)
		_, err = svc.Status(t.Context(), "a")
		assert.Error(t, err)
		assert.Error(t, svc.Delete(t.Context(), "a"))
		_, err = svc.StartAuthorisation(t.Context(), "a")
		assert.Error(t, err)
		_, err = svc.PaymentStatuses(t.Context(), basket.Refs(payments.ProductNorwegianDomestic, "a"))
		assert.Error(t, err)
	}
}

func TestDecodeBothFieldNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		want []string
	}{
		{"request name", `{"paymentIds":["a","b"]}`, []string{"a", "b"}},
		{"GET name", `{"payments":["a","b"]}`, []string{"a", "b"}},
		{"both: paymentIds wins", `{"payments":["x"],"paymentIds":["a"]}`, []string{"a"}},
		{"neither", `{"transactionStatus":"RCVD"}`, nil},
		{"empty", `{"payments":[]}`, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b basket.Basket
			require.NoError(t, json.Unmarshal([]byte(tt.json), &b))
			assert.Equal(t, tt.want, b.PaymentIDs)
		})
	}
	var b basket.Basket
	assert.Error(t, json.Unmarshal([]byte(`{"payments":"x"}`), &b))
	assert.Error(t, json.Unmarshal([]byte(`[`), &b))
}

func TestPaymentStatusesUnit(t *testing.T) {
	svc := mockBank(t)
	statusURL := func(id string) string {
		return baseURL + "/v1/payments/norwegian-domestic-credit-transfers/" + id + "/status"
	}
	var rec recorder
	httpmock.RegisterResponder(http.MethodGet, statusURL(docPayment1), rec.responder(http.StatusOK, doc(t, "payment-status-actc.json")))
	httpmock.RegisterResponder(http.MethodGet, statusURL(docPayment2), rec.responder(http.StatusNotFound,
		[]byte(`{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`)))

	refs := basket.Refs(payments.ProductNorwegianDomestic, docPayment1, docPayment2)
	got, err := svc.PaymentStatuses(t.Context(), refs)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, refs[0], got[0].Ref)
	require.NoError(t, got[0].Err)
	assert.Equal(t, payments.StatusACTC, got[0].Status.TransactionStatus)
	assert.Equal(t, refs[1], got[1].Ref)
	assert.Nil(t, got[1].Status)
	assert.ErrorIs(t, got[1].Err, client.ErrNotFound)
	assert.Len(t, rec.reqs, 2)

	t.Run("invalid refs send nothing", func(t *testing.T) {
		httpmock.ZeroCallCounters()
		for _, bad := range [][]payments.Ref{
			{refs[0], {Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic}},
			{{Service: payments.ServiceSingle, ID: docPayment1}},
			{{Product: payments.ProductNorwegianDomestic, ID: docPayment1}},
		} {
			_, err := svc.PaymentStatuses(t.Context(), bad)
			require.ErrorIs(t, err, client.ErrValidation)
		}
		assert.Equal(t, 0, httpmock.GetTotalCallCount())
	})
	t.Run("ended context sends nothing", func(t *testing.T) {
		httpmock.ZeroCallCounters()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		got, err := svc.PaymentStatuses(ctx, refs)
		require.NoError(t, err)
		require.Len(t, got, 2)
		for _, g := range got {
			assert.ErrorIs(t, g.Err, context.Canceled)
		}
		assert.Equal(t, 0, httpmock.GetTotalCallCount())
	})
	t.Run("no refs", func(t *testing.T) {
		got, err := svc.PaymentStatuses(t.Context(), nil)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

// A 201 without basketId (the basket resource does not require it) is a
// success when its links name the basket: the id comes from them, the
// scaRedirect is kept, and a journaled create records the basket as
// created. An answer that names the basket nowhere stays an unknown
// outcome, never a success without an id.
func TestCreateWithoutBasketID(t *testing.T) {
	const id = "bsk-7f3a"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"relative links", `{"transactionStatus":"RCVD","_links":{"self":{"href":"/v1/signing-baskets/` + id + `"},` +
			`"status":{"href":"/v1/signing-baskets/` + id + `/status"},"scaRedirect":{"href":"https://bank.example/sca?state=x"}}}`, id},
		{"absolute links under a base path", `{"transactionStatus":"RCVD","_links":{"status":{"href":"https://psd2.bank.example/api/v1/signing-baskets/` + id + `/status"},` +
			`"scaRedirect":{"href":"https://bank.example/sca?state=x"}}}`, id},
		{"only the redirect", `{"transactionStatus":"RCVD","_links":{"scaRedirect":{"href":"https://bank.example/sca?state=x"}}}`, ""},
		{"links that disagree", `{"transactionStatus":"RCVD","_links":{"self":{"href":"/v1/signing-baskets/a"},"status":{"href":"/v1/signing-baskets/b/status"}}}`, ""},
		{"a dot segment", `{"transactionStatus":"RCVD","_links":{"self":{"href":"/v1/signing-baskets/../x"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := journal.New(store.NewMemoryStore())
			require.NoError(t, err)
			svc, err := basket.New(testtpp.MockClient(t), basket.WithJournal(j))
			require.NoError(t, err)
			var rec recorder
			httpmock.RegisterResponder(http.MethodPost, basketURL, rec.responder(http.StatusCreated, []byte(tc.body)))
			got, err := svc.Create(t.Context(), []string{docPayment1}, basketOpts()...)
			var entries []journal.Entry
			for e, err := range j.Entries(t.Context()) {
				require.NoError(t, err)
				entries = append(entries, e)
			}
			require.Len(t, entries, 1)
			if tc.want == "" {
				require.ErrorIs(t, err, client.ErrOutcomeUnknown)
				assert.True(t, entries[0].InDoubt(), "in doubt, for Resolve")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.BasketID)
			assert.Equal(t, journal.OutcomeCreated, entries[0].Outcome)
			assert.Equal(t, tc.want, entries[0].ID, "the journal records the basket")
			assert.Equal(t, "https://bank.example/sca?state=x", got.SCARedirect(), "the redirect kept")
			assert.Equal(t, 1, httpmock.GetTotalCallCount(), "sent once")
		})
	}
}
