package basket_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
)

// TestMetaOfEveryCall: every method of the Service that calls the bank
// gives, on success, the response metadata of its answer, whose
// RequestID is the X-Request-ID the bank saw on the wire: a typed result
// by its Meta method, a delete through client.SaveMeta.
func TestMetaOfEveryCall(t *testing.T) {
	svc := mockBank(t)
	var wire metatest.Wire
	answer := func(method, url string, status int, body []byte) {
		httpmock.RegisterResponder(method, url, func(req *http.Request) (*http.Response, error) {
			wire.Saw(req)
			resp := httpmock.NewBytesResponse(status, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
	}
	const self = "/v1/signing-baskets/" + docBasketID
	answer(http.MethodPost, basketURL, http.StatusCreated, doc(t, "signing-basket-create-201.json"))
	answer(http.MethodGet, baseURL+self, http.StatusOK, doc(t, "signing-basket-get.json"))
	answer(http.MethodGet, baseURL+self+"/status", http.StatusOK, []byte(`{"transactionStatus":"ACTC"}`))
	answer(http.MethodDelete, baseURL+self, http.StatusNoContent, nil)
	answer(http.MethodPost, baseURL+self+"/authorisations", http.StatusCreated, doc(t, "payment-start-authorisation-201.json"))

	ro := basketOpts()
	deleted := func(del func(context.Context, string, ...client.RequestOption) error, arg string) func(context.Context) (client.Meta, error) {
		return func(ctx context.Context) (m client.Meta, err error) {
			err = del(ctx, arg, append(ro, client.SaveMeta(&m))...)
			return m, err
		}
	}
	calls := []struct {
		op     string
		status int
		call   func(context.Context) (client.Meta, error)
	}{
		{"basket.Create", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.Create(ctx, []string{docPayment1, docPayment2}, ro...))
		}},
		{"basket.Get", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Get(ctx, docBasketID, ro...)) }},
		{"basket.GetAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.GetAt(ctx, self, ro...)) }},
		{"basket.Status", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Status(ctx, docBasketID, ro...)) }},
		{"basket.StatusAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.StatusAt(ctx, self+"/status", ro...)) }},
		{"basket.Delete", http.StatusNoContent, deleted(svc.Delete, docBasketID)},
		{"basket.DeleteAt", http.StatusNoContent, deleted(svc.DeleteAt, self)},
		{"basket.StartAuthorisation", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.StartAuthorisation(ctx, docBasketID, ro...))
		}},
		{"basket.StartAuthorisationAt", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
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
