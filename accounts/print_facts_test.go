package accounts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
)

// The printed and slog forms show a document's enumerations (balance
// and cash account type, status, usage), currencies, amounts and change
// times in clear because they identify no one. A bank that sends
// something else in one of them (a holder's name in an amount, an IBAN
// as a balance type) must not have it written into the TPP's logs: such
// a value shows as OTHER, an unreadable amount's text as [redacted].
// Before, each was shown as sent.
func TestPrintedFormsShowFactsOnlyAsFacts(t *testing.T) {
	const iban, name = "NO9386011117947", "Kari MARK Nordmann"
	var a accounts.Account
	require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"a1","currency":"`+name+`","cashAccountType":"`+iban+
		`","status":"`+name+`","usage":"`+iban+`","balances":[{"balanceType":"`+iban+`","lastChangeDateTime":"`+name+
		`","balanceAmount":{"amount":"`+name+`","currency":"NOK"}}]}`), &a))
	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"t1","transactionAmount":{"amount":"`+iban+`","currency":"`+name+
		`"},"balanceAfterTransaction":{"balanceType":"`+name+`","balanceAmount":{"amount":"1.00","currency":"`+iban+`"}}}`), &tr))
	var ct accounts.CardTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"cardTransactionId":"c1","transactionAmount":{"amount":"`+name+`","currency":"NOK"},`+
		`"originalAmount":{"amount":"1.00","currency":"`+iban+`"}}`), &ct))
	var ct2 accounts.CardTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"cardTransactionId":"c2","acceptorTransactionDateTime":"`+name+
		`","markupFeePercentage":"`+iban+`","currencyExchange":[{"exchangeRate":"`+name+`","sourceCurrency":"`+iban+`"}]}`), &ct2))
	var ca accounts.CardAccount
	require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"c1","currency":"`+iban+`","status":"`+name+`","usage":"`+name+
		`","creditLimit":{"amount":"`+iban+`","currency":"NOK"}}`), &ca))

	for _, v := range []any{a, tr, ct, ct2, ca, a.Balances[0]} {
		var js, text bytes.Buffer
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
		slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
		for form, out := range map[string]string{"%v": fmt.Sprint(v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v),
			"slog json": js.String(), "slog text": text.String()} {
			for _, s := range []string{iban, name} {
				if strings.Contains(out, s) {
					t.Errorf("%T: %s shows %s: %s", v, form, s, out)
				}
			}
		}
	}

	// What reads as the interface's values is still shown.
	var okc accounts.CardTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"cardTransactionId":"c3","acceptorTransactionDateTime":"2025-03-12T14:03:00+01:00",`+
		`"markupFeePercentage":"1.75","currencyExchange":[{"exchangeRate":"11.4512","sourceCurrency":"EUR"}]}`), &okc))
	for _, s := range []string{"acceptorTransactionDateTime=2025-03-12T14:03:00+01:00", "markupFeePercentage=1.75",
		"exchangeRate=11.4512", "sourceCurrency=EUR"} {
		require.Contains(t, fmt.Sprint(okc), s)
	}
	var ok accounts.Account
	require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"a1","currency":"NOK","cashAccountType":"CACC","status":"enabled",`+
		`"usage":"PRIV","balances":[{"balanceType":"interimAvailable","lastChangeDateTime":"2017-10-25T15:30:35.035Z",`+
		`"balanceAmount":{"amount":"-12.50","currency":"NOK"}}]}`), &ok))
	out := fmt.Sprint(ok)
	for _, s := range []string{"currency=NOK", "cashAccountType=CACC", "status=enabled", "usage=PRIV", "balanceType=interimAvailable",
		"lastChangeDateTime=2017-10-25T15:30:35.035Z", `balanceAmount="-12.50 NOK"`} {
		require.Contains(t, out, s)
	}
}
