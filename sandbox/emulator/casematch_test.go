package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// rekey renames key old of obj to new, keeping its value.
func rekey(obj map[string]any, old, new string) {
	obj[new] = obj[old]
	delete(obj, old)
}

// problemText returns the first tppMessage's text.
func problemText(t *testing.T, r *response) string {
	t.Helper()
	var e struct {
		TPPMessages []tppMessage `json:"tppMessages"`
	}
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	require.NotEmpty(t, e.TPPMessages, string(r.body))
	return e.TPPMessages[0].Text
}

// A key naming a field in another case is an unknown field to the bank
// (docs/interface.md sections 2.4, 2.5, 2.7): a required field so written
// is missing (400 FORMAT_ERROR naming it), while the body written as the
// interface names its fields is created.
func TestFieldNamesAreCaseSensitive(t *testing.T) {
	t.Parallel()
	clock := fixedClock(checkToday)
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Case TPP")
	ndct := "/v1/payments/" + rules.ProductNDCT

	upperName := validNDCT()
	rekey(upperName, "creditorName", "CREDITORNAME")
	upperAmount := validNDCT()
	rekey(upperAmount["instructedAmount"].(map[string]any), "amount", "Amount")
	bulk := validBulk()
	entry := validNDCT()
	delete(entry, "debtorAccount")
	rekey(entry, "creditorName", "creditorname")
	bulk["payments"].([]any)[1] = entry

	tests := []struct {
		name, path string
		body       []byte
		field, key string
	}{
		{"creditorName upper case", ndct, upperName.Bytes(), "creditorName", "CREDITORNAME"},
		{"instructedAmount.amount capitalised", ndct, upperAmount.Bytes(), "instructedAmount.amount", "instructedAmount.Amount"},
		{"bulk entry's creditorName lower case", "/v1/bulk-payments/" + rules.ProductNDCT, bulk.Bytes(), "payments[1].creditorName", "payments[1].creditorname"},
	}
	for _, tt := range tests {
		r := c.do(http.MethodPost, tt.path, tt.body, c.payHeaders()...)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tt.name, r.body)
		code, path := r.problem(t)
		assert.Equal(t, []string{"FORMAT_ERROR", tt.field}, []string{code, path}, tt.name)
		assert.Contains(t, problemText(t, r), `"`+tt.key+`"`, tt.name)
	}

	// The same bodies written as the interface names the fields.
	c.createPayment(ndct, validNDCT().Bytes())
	c.createPayment("/v1/bulk-payments/"+rules.ProductNDCT, validBulk().Bytes())

	// An optional field in another case is ignored like any unknown
	// field: the payment is created without it.
	withRemittance := validNDCT()
	setPath(withRemittance, "instructedAmount.amount", "11.00")
	withRemittance["RemittanceInformationUnstructured"] = "faktura 7"
	delete(withRemittance, "remittanceInformationUnstructured")
	c.createPayment(ndct, withRemittance.Bytes())
	decoded, e := paymentrules.Decode(withRemittance.Bytes())
	require.Nil(t, e)
	assert.Nil(t, decoded.RemittanceInformationUnstructured)
	require.NotNil(t, decoded.CreditorName)

	// The exact key is what counts when both are sent, in either order.
	for i, raw := range []string{`"creditorName":"Ola Eksempel","CREDITORNAME":""`, `"CREDITORNAME":"","creditorName":"Ola Eksempel"`} {
		b := validNDCT()
		setPath(b, "instructedAmount.amount", strconv.Itoa(12+i)+".00")
		delete(b, "creditorName")
		out := strings.Replace(string(b.Bytes()), "{", "{"+raw+",", 1)
		c.createPayment(ndct, []byte(out))
		ps := s.Control().Payments()
		assert.Equal(t, "Ola Eksempel", ps[len(ps)-1].CreditorName, raw)
	}

	// Signing baskets (c.decode).
	ids, _ := c.newPayments(1)
	r := c.do(http.MethodPost, "/v1/signing-baskets", []byte(`{"PAYMENTIDS":["`+ids[0]+`"]}`), c.basketHeaders()...)
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	code, path := r.problem(t)
	assert.Equal(t, []string{"FORMAT_ERROR", "paymentIds"}, []string{code, path})
	assert.Contains(t, problemText(t, r), `"PAYMENTIDS"`)
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
}

func TestWithMiscasedHint(t *testing.T) {
	t.Parallel()
	missing := errFormat("payments[0].instructedAmount.amount", "payments[0].instructedAmount.amount is required.")
	body := []byte(`{"payments":[{"instructedAmount":{"AMOUNT":"1.00"}}]}`)
	got := withMiscasedHint(missing, body)
	assert.Equal(t, `payments[0].instructedAmount.amount is required. The body has "payments[0].instructedAmount.AMOUNT" instead: field names are case-sensitive.`, got.msg.Text)
	assert.Equal(t, missing.msg.Path, got.msg.Path)
	assert.Equal(t, "payments[0].instructedAmount.amount is required.", missing.msg.Text, "the error given is not changed")

	for name, tt := range map[string]struct {
		e    *apiError
		body string
	}{
		"exact key present":  {errFormat("creditorName", "too long"), `{"creditorName":"x","CREDITORNAME":"y"}`},
		"no such key":        {errFormat("creditorName", "required"), `{"debtorName":"x"}`},
		"another code":       {newError(http.StatusBadRequest, "KID_INVALID", "bad").at("creditorName"), `{"CreditorName":"x"}`},
		"no path":            {errFormat("", "not JSON"), `{"CreditorName":"x"}`},
		"body not JSON":      {errFormat("creditorName", "required"), `{"CreditorName"`},
		"prefix of the path": {errFormat("creditorName", "required"), `{"creditor":{"Name":"x"}}`},
	} {
		assert.Same(t, tt.e, withMiscasedHint(tt.e, []byte(tt.body)), name)
	}
}
