package payments_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// odd bank amounts that money's request-side rules refuse but that a bank
// document may carry: more fraction digits than the currency has, a
// withdrawn currency, no currency.
var oddBankAmounts = map[string]string{
	"more digits than EUR": `{"amount":"0.125","currency":"EUR"}`,
	"withdrawn currency":   `{"amount":"7.50","currency":"HRK"}`,
	"no currency":          `{"amount":"3.00"}`,
	"number token":         `{"amount":0.125,"currency":"EUR"}`,
}

// A decoded Initiation or Details whose amount money's request rules
// refuse encodes again byte for byte, and decodes again to the same
// amount; the amount still fails Validate, so no request can carry it.
func TestDecodedOddAmountsEncodeAsSent(t *testing.T) {
	t.Parallel()
	for name, amount := range oddBankAmounts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := `{"paymentId":"p1","transactionStatus":"RCVD","transactionFees":` + amount + `}`
			var init payments.Initiation
			require.NoError(t, json.Unmarshal([]byte(in), &init))
			require.NotNil(t, init.TransactionFees)
			require.NoError(t, init.TransactionFees.Err(), "readable")
			require.Error(t, init.TransactionFees.Validate(), "refused in a request")
			out, err := json.Marshal(&init)
			require.NoError(t, err, "a decoded Initiation encodes")
			assert.Equal(t, in, string(out), "byte for byte")
			var back payments.Initiation
			require.NoError(t, json.Unmarshal(out, &back))
			assert.True(t, back.TransactionFees.Equal(*init.TransactionFees))

			in = `{"paymentId":"p1","instructedAmount":` + amount +
				`,"creditorAccount":{"bban":"91026527436","currency":"NOK"},"debtorAccount":{"bban":"95312776066","currency":"NOK"}}`
			var d payments.Details
			require.NoError(t, json.Unmarshal([]byte(in), &d))
			out, err = json.Marshal(&d)
			require.NoError(t, err, "decoded Details encode")
			assert.Equal(t, in, string(out), "byte for byte")

			// Set to a new value, the amount is one built in code again:
			// validated when encoded.
			d.InstructedAmount.Value = d.InstructedAmount.Value.Add(decimal.RequireFromString("0.001"))
			_, err = json.Marshal(&d)
			assert.Error(t, err, "a changed amount is validated")
		})
	}
}

// A decoded odd amount set to a valid value is written as built in code,
// never as the bank's old text.
func TestDecodedOddAmountChangedIsWrittenAnew(t *testing.T) {
	t.Parallel()
	var init payments.Initiation
	require.NoError(t, json.Unmarshal([]byte(`{"paymentId":"p1","transactionFees":{"amount":"0.125","currency":"EUR"}}`), &init))
	init.TransactionFees.Value = decimal.RequireFromString("0.25")
	out, err := json.Marshal(init.TransactionFees)
	require.NoError(t, err)
	assert.Equal(t, `{"amount":"0.25","currency":"EUR"}`, string(out))
	init.TransactionFees.Value = decimal.RequireFromString("0.125")
	init.TransactionFees.Currency = "NOK"
	_, err = json.Marshal(init.TransactionFees)
	assert.ErrorIs(t, err, money.ErrTooManyDigits, "a changed currency is validated")
}

// A payment request decoded from JSON with such an amount is refused
// before it could be sent.
func TestRequestRefusesDecodedOddAmount(t *testing.T) {
	t.Parallel()
	for name, amount := range oddBankAmounts {
		var p payments.SEPA
		b, err := json.Marshal(validSEPA())
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &p))
		require.NoError(t, json.Unmarshal([]byte(amount), &p.InstructedAmount))
		assert.Error(t, p.Validate(testNow), name)
	}
	assert.ErrorIs(t, money.Amount{}.Validate(), money.ErrUnknownCurrency)
}

// A decoded bulk payment's Details, which carry no instructedAmount of
// their own, encode again without one.
func TestBulkDetailsWithoutAmountEncode(t *testing.T) {
	t.Parallel()
	in := `{"paymentId":"b1","instructedAmount":{"amount":"1.00","currency":"NOK"},"creditorAccount":{"bban":"91026527436","currency":"NOK"},"debtorAccount":{"bban":"95312776066","currency":"NOK"}}`
	in = `{"paymentId":"b1","creditorAccount":{},"debtorAccount":{"bban":"95312776066","currency":"NOK"},"payments":[` + in + `]}`
	var d payments.Details
	require.NoError(t, json.Unmarshal([]byte(in), &d))
	assert.True(t, d.InstructedAmount.IsZero(), "absent")
	out, err := json.Marshal(&d)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(out), `"instructedAmount"`), "only the inner payment has one")
	var back payments.Details
	require.NoError(t, json.Unmarshal(out, &back))
	require.Len(t, back.Payments, 1)
	assert.True(t, back.InstructedAmount.IsZero())
	assert.Equal(t, "1.00 NOK", back.Payments[0].InstructedAmount.String())
}
