package basket_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestPaymentStatusesBounded: PaymentStatuses sends one call per ref, so
// it refuses more refs than a basket holds (basket.MaxPayments) and refs
// whose id no path can carry (a dot segment, a control character, bytes
// that are not UTF-8, spaces around it, longer than client.MaxIDLength)
// with a *client.ValidationError inside a *client.NotSentError, quoting
// no id, before any call is sent. It sent one call for each of any
// number of refs, and a malformed id was refused call by call, after the
// good refs before it had been sent.
func TestPaymentStatusesBounded(t *testing.T) {
	svc := mockBank(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(404, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`))
	good := docPayment1
	many := make([]string, basket.MaxPayments+1)
	for i := range many {
		many[i] = good[:len(good)-2] + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	tests := map[string]struct {
		refs  []payments.Ref
		field string
	}{
		"more than a basket holds":  {basket.Refs(payments.ProductNorwegianDomestic, many...), "refs"},
		"many more":                 {make([]payments.Ref, 100000), "refs"},
		"dot segment":               {basket.Refs(payments.ProductNorwegianDomestic, good, ".."), "refs[1].paymentId"},
		"control character":         {basket.Refs(payments.ProductNorwegianDomestic, good, "enc!!SECRET\n"), "refs[1].paymentId"},
		"C1 control":                {basket.Refs(payments.ProductNorwegianDomestic, good, "enc!!SECRET\u009b"), "refs[1].paymentId"},
		"not UTF-8":                 {basket.Refs(payments.ProductNorwegianDomestic, good, "enc!!SECRET\xff"), "refs[1].paymentId"},
		"spaces around":             {basket.Refs(payments.ProductNorwegianDomestic, good, " enc!!SECRET"), "refs[1].paymentId"},
		"too long":                  {basket.Refs(payments.ProductNorwegianDomestic, good, "enc!!SECRET"+strings.Repeat("A", client.MaxIDLength)), "refs[1].paymentId"},
		"product no path can carry": {[]payments.Ref{{Service: payments.ServiceSingle, Product: "..", ID: good}}, "refs[0].product"},
		"unknown service":           {[]payments.Ref{{Service: "SECRET", Product: payments.ProductNorwegianDomestic, ID: good}}, "refs[0].service"},
	}
	for name, tt := range tests {
		httpmock.ZeroCallCounters()
		got, err := svc.PaymentStatuses(t.Context(), tt.refs)
		assert.Nil(t, got, name)
		require.ErrorIs(t, err, client.ErrValidation, name)
		var ns *client.NotSentError
		require.ErrorAs(t, err, &ns, name)
		var ve *client.ValidationError
		require.True(t, errors.As(err, &ve), name)
		assert.Equal(t, tt.field, ve.Field, name)
		assert.NotContains(t, err.Error(), "SECRET", name)
		assert.Less(t, len(err.Error()), 300, name)
		assert.Equal(t, 0, httpmock.GetTotalCallCount(), name)
	}

	// As many refs as a basket holds are asked for, each once.
	httpmock.ZeroCallCounters()
	got, err := svc.PaymentStatuses(t.Context(), basket.Refs(payments.ProductNorwegianDomestic, many[:basket.MaxPayments]...))
	require.NoError(t, err)
	assert.Len(t, got, basket.MaxPayments)
	assert.Equal(t, basket.MaxPayments, httpmock.GetTotalCallCount())
}
