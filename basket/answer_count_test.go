package basket_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
)

// TestBasketAnswerPaymentCountBounded: a basket holds at most
// basket.MaxPayments payments (docs/interface.md sections 2.7 and 8), so
// an answer listing more is refused with a *basket.TooManyPaymentsError
// (it matches client.ErrValueTooLong, as the SDK's other bounds on the
// bank's answers), never a basket holding them. Before, a Get answer
// listing 5,000 ids (within the client's bounds on a body) was a basket
// of 5,000 payments, and PaymentStatuses over its Refs sent 5,000 status
// calls to the bank. An answer of MaxPayments ids is read.
func TestBasketAnswerPaymentCountBounded(t *testing.T) {
	ids := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`"enc!!p%d"`, i)
		}
		return strings.Join(s, ",")
	}
	for _, field := range []string{"payments", "paymentIds"} {
		for _, n := range []int{basket.MaxPayments + 1, 5000} {
			t.Run(fmt.Sprintf("%s %d", field, n), func(t *testing.T) {
				svc := mockBank(t)
				body := `{"transactionStatus":"ACTC","` + field + `":[` + ids(n) + `]}`
				httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK, body))
				got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
				assert.Nil(t, got)
				var tm *basket.TooManyPaymentsError
				require.ErrorAs(t, err, &tm)
				assert.Equal(t, n, tm.Count)
				assert.Equal(t, basket.MaxPayments, tm.Max)
				assert.ErrorIs(t, err, client.ErrValueTooLong)
				assert.NotContains(t, err.Error(), "enc!!p1")
			})
		}
	}
	svc := mockBank(t)
	body := `{"transactionStatus":"ACTC","payments":[` + ids(basket.MaxPayments) + `]}`
	httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK, body))
	got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	assert.Len(t, got.PaymentIDs, basket.MaxPayments)
}
