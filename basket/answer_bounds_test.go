package basket_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestBasketAnswerIDsBounded: the ids of a basket's answer (its basketId
// and the ids of its payments, which later calls put in a path) are held
// to client.MaxIDLength as a payment's are; a longer one is a
// client.ValueTooLongError that quotes nothing of it, never a basket
// holding it.
func TestBasketAnswerIDsBounded(t *testing.T) {
	long := "enc!!" + strings.Repeat("A", client.MaxIDLength)
	for name, body := range map[string]string{
		"basketId":   `{"basketId":"` + long + `","transactionStatus":"ACTC","payments":["` + docPayment1 + `"]}`,
		"payments":   `{"transactionStatus":"ACTC","payments":["` + docPayment1 + `","` + long + `"]}`,
		"paymentIds": `{"transactionStatus":"ACTC","paymentIds":["` + long + `"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			svc := mockBank(t)
			httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK, body))
			got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
			assert.Nil(t, got)
			require.ErrorIs(t, err, client.ErrValueTooLong)
			assert.NotContains(t, err.Error(), long)
		})
	}
}
