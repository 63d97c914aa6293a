package basket_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestBasketReadsNeedTransactionStatusAnd200: a basket's GET and status
// answers are 200 and carry transactionStatus (docs/interface.md sections
// 2.7 and 10 "Paths"). A 200 without it is a *payments.IncompleteAnswerError
// (payments.ErrIncompleteAnswer), another 2xx (a 204 without a body, a
// 202) a *client.UnexpectedStatusError: neither is a basket whose status
// is "".
func TestBasketReadsNeedTransactionStatusAnd200(t *testing.T) {
	self := basketURL + "/" + docBasketID
	reads := []struct {
		name string
		url  string
		call func(context.Context, *basket.Service) (any, error)
	}{
		{"Get", self, func(ctx context.Context, s *basket.Service) (any, error) { return s.Get(ctx, docBasketID) }},
		{"GetAt", self, func(ctx context.Context, s *basket.Service) (any, error) {
			return s.GetAt(ctx, "/v1/signing-baskets/"+docBasketID)
		}},
		{"Status", self + "/status", func(ctx context.Context, s *basket.Service) (any, error) { return s.Status(ctx, docBasketID) }},
		{"StatusAt", self + "/status", func(ctx context.Context, s *basket.Service) (any, error) {
			return s.StatusAt(ctx, "/v1/signing-baskets/"+docBasketID+"/status")
		}},
	}
	answers := []struct {
		name       string
		status     int
		body       string
		incomplete bool // else an unexpected status
	}{
		{"200 {}", http.StatusOK, `{}`, true},
		{"200 links only", http.StatusOK, `{"_links":{"self":{"href":"/v1/signing-baskets/` + docBasketID + `","verbs":["GET"]}}}`, true},
		{"200 payments only", http.StatusOK, `{"payments":["` + docPayment1 + `"]}`, true},
		{"204", http.StatusNoContent, ``, false},
		{"202", http.StatusAccepted, `{"transactionStatus":"ACTC"}`, false},
	}
	for _, r := range reads {
		for _, a := range answers {
			t.Run(r.name+" "+a.name, func(t *testing.T) {
				svc := mockBank(t)
				httpmock.RegisterResponder(http.MethodGet, r.url, httpmock.NewBytesResponder(a.status, []byte(a.body)).
					HeaderSet(http.Header{"Content-Type": {"application/json"}}))
				got, err := r.call(t.Context(), svc)
				require.Error(t, err, "answer %v", got)
				if a.incomplete {
					var ie *payments.IncompleteAnswerError
					require.ErrorAs(t, err, &ie)
					assert.True(t, errors.Is(err, payments.ErrIncompleteAnswer))
					assert.Equal(t, "transactionStatus", ie.Missing)
					assert.Equal(t, a.status, ie.StatusCode)
					assert.Equal(t, "basket."+r.name, ie.Operation)
					assert.Contains(t, err.Error(), "the basket's state is unknown")
				} else {
					var ue *client.UnexpectedStatusError
					require.ErrorAs(t, err, &ue)
					assert.Equal(t, a.status, ue.StatusCode)
				}
			})
		}
	}
}
