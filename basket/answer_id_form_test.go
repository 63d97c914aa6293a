package basket_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestBasketAnswerIDsForm: an id of a basket's answer that no later call
// could put in a path (a control character, bytes that are not UTF-8,
// spaces around it, an empty payment id, a dot segment) is refused with
// a *client.MalformedValueError naming the member and quoting nothing of
// the id, as the client refuses such a created resource's id: before, a
// Get answer's basketId with a line break or a terminal escape, or a
// payments list with an empty id, was a basket holding them, printed and
// handed on to Refs as the bank's. The create's answer is refused too,
// its outcome unknown (the bank answered 201, but with no usable basket).
func TestBasketAnswerIDsForm(t *testing.T) {
	for name, body := range map[string]string{
		"basketId control":      `{"basketId":"enc!!AB\u001b[2JCD","transactionStatus":"ACTC","payments":["` + docPayment1 + `"]}`,
		"basketId line break":   `{"basketId":"enc!!AB\nCD","transactionStatus":"ACTC"}`,
		"basketId not UTF-8":    "{\"basketId\":\"enc!!AB\xffCD\",\"transactionStatus\":\"ACTC\"}",
		"basketId padded":       `{"basketId":" enc!!ABCD","transactionStatus":"ACTC"}`,
		"basketId dot":          `{"basketId":"..","transactionStatus":"ACTC"}`,
		"payments control":      `{"transactionStatus":"ACTC","payments":["` + docPayment1 + `","enc!!AB\u0007CD"]}`,
		"payments empty":        `{"transactionStatus":"ACTC","payments":["` + docPayment1 + `",""]}`,
		"paymentIds blank":      `{"transactionStatus":"ACTC","paymentIds":["  "]}`,
		"paymentIds not UTF-8":  "{\"transactionStatus\":\"ACTC\",\"paymentIds\":[\"enc!!AB\\udc00CD\"]}",
		"paymentIds delete key": `{"transactionStatus":"ACTC","paymentIds":["enc!!AB` + "\u007f" + `CD"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			svc := mockBank(t)
			httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK, body))
			got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
			assert.Nil(t, got)
			require.ErrorIs(t, err, client.ErrMalformedValue)
			var me *client.MalformedValueError
			require.ErrorAs(t, err, &me)
			assert.NotEmpty(t, me.Field)
			assert.NotContains(t, err.Error(), "AB")
		})
	}

	svc := mockBank(t)
	httpmock.RegisterResponder(http.MethodPost, basketURL, httpmock.NewStringResponder(http.StatusCreated,
		`{"basketId":"`+docBasketID+`","transactionStatus":"RCVD","paymentIds":["`+docPayment1+`","enc!!AB\u0000CD"]}`))
	got, err := svc.Create(t.Context(), []string{docPayment1}, basketOpts()...)
	assert.Nil(t, got)
	require.ErrorIs(t, err, client.ErrMalformedValue)
	assert.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.NotContains(t, err.Error(), "AB")
}
