package basket_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestBasketAnswerStatusForm: a basket's transactionStatus holding a
// control character (a line break, a terminal escape) or bytes that are
// not UTF-8 is no status code: the read is refused with a
// *client.MalformedValueError quoting nothing of it. It was a basket
// whose unknown status carried the bank's text, a forged log line
// included, to the caller. An unknown status of printable text (HOLD,
// acsc) is still taken, for the caller to judge (IsKnown).
func TestBasketAnswerStatusForm(t *testing.T) {
	for name, st := range map[string]string{
		"line break": `ACTC\nforged log line`,
		"escape":     `AC\u001b[2J`,
		"NUL":        `AC\u0000`,
		"C1":         `AC\u009b`,
		"not UTF-8":  "AC\xff",
	} {
		t.Run(name, func(t *testing.T) {
			svc := mockBank(t)
			body := `{"transactionStatus":"` + st + `"}`
			httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID, httpmock.NewStringResponder(http.StatusOK, body))
			httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID+"/status", httpmock.NewStringResponder(http.StatusOK, body))
			got, err := svc.Get(t.Context(), docBasketID, basketOpts()...)
			assert.Nil(t, got)
			require.ErrorIs(t, err, client.ErrMalformedValue)
			assert.NotContains(t, err.Error(), "forged")
			st, err := svc.Status(t.Context(), docBasketID, basketOpts()...)
			assert.Nil(t, st)
			require.ErrorIs(t, err, client.ErrMalformedValue)
		})
	}
	for _, st := range []string{"HOLD", "acsc"} {
		svc := mockBank(t)
		httpmock.RegisterResponder(http.MethodGet, basketURL+"/"+docBasketID+"/status",
			httpmock.NewStringResponder(http.StatusOK, `{"transactionStatus":"`+st+`"}`))
		got, err := svc.Status(t.Context(), docBasketID, basketOpts()...)
		require.NoError(t, err)
		assert.Equal(t, payments.TransactionStatus(st), got.TransactionStatus)
		assert.False(t, got.TransactionStatus.IsKnown())
	}
}
