package payments_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/payments"
)

// TestMetaOfEveryCall: every method of the Service that calls the bank
// gives, on success, the response metadata of its answer by its result's
// Meta method, whose RequestID is the X-Request-ID the bank saw on the
// wire.
func TestMetaOfEveryCall(t *testing.T) {
	svc := newMockService(t)
	var wire metatest.Wire
	answer := func(method, path string, status int, file string) {
		var body []byte
		if file != "" {
			body = testdata(t, file)
		}
		httpmock.RegisterResponder(method, baseURL+path, func(req *http.Request) (*http.Response, error) {
			wire.Saw(req)
			resp := httpmock.NewBytesResponse(status, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
	}
	const self = "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	answer(http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
	answer(http.MethodGet, self+"/status", http.StatusOK, "payment-status-actc.json")
	answer(http.MethodGet, self, http.StatusOK, "payment-ndct-details.json")
	answer(http.MethodDelete, self, http.StatusNoContent, "")
	answer(http.MethodPost, self+"/authorisations", http.StatusCreated, "payment-start-authorisation-201.json")

	ro := psuPresent()
	calls := []struct {
		op     string
		status int
		call   func(context.Context) (client.Meta, error)
	}{
		{"payments.CreateNorwegianDomestic", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.CreateNorwegianDomestic(ctx, validNDCT(), ro...))
		}},
		{"payments.Status", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Status(ctx, ref, ro...)) }},
		{"payments.StatusAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.StatusAt(ctx, self+"/status", ro...)) }},
		{"payments.Get", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Get(ctx, ref, ro...)) }},
		{"payments.GetAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.GetAt(ctx, self, ro...)) }},
		{"payments.Cancel", http.StatusNoContent, func(ctx context.Context) (client.Meta, error) { return meta(svc.Cancel(ctx, ref, ro...)) }},
		{"payments.CancelAt", http.StatusNoContent, func(ctx context.Context) (client.Meta, error) { return meta(svc.CancelAt(ctx, self, ro...)) }},
		{"payments.StartAuthorisation", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.StartAuthorisation(ctx, ref, ro...))
		}},
		{"payments.StartAuthorisationAt", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.StartAuthorisationAt(ctx, self+"/authorisations", ro...))
		}},
	}
	for _, c := range calls {
		before := len(wire.Sent())
		m, err := c.call(t.Context())
		require.NoError(t, err, c.op)
		wire.Check(t, before, c.op, c.status, m)
	}
}

// meta returns the metadata of a result r of a call that ended with err.
func meta[T interface{ Meta() client.Meta }](r T, err error) (client.Meta, error) {
	if err != nil {
		return client.Meta{}, err
	}
	return r.Meta(), nil
}
