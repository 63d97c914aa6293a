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

// The printed and slog forms show a bank's codes, statuses and the
// names of members the SDK does not know in clear, but not without
// bound: a bank's answer may hold a product, a code or a member name of
// megabytes, and a TPP that logs the account it read must not write them
// whole, once per line.
func TestPrintedFormsBoundBankText(t *testing.T) {
	long := strings.Repeat("p", 100_000)
	var a accounts.Account
	require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"a1","currency":"NOK","product":"`+long+`","usage":"`+long+
		`","`+long+`":1,"_links":{"`+long+`":{"href":"/v1/accounts/a1"}}}`), &a))
	require.Len(t, a.Product, len(long), "the document keeps the bank's value")
	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"t1","bankTransactionCode":"`+long+`","purposeCode":"`+long+`"}`), &tr))

	// As many members the SDK does not know, and balances, as an answer
	// may hold.
	var many strings.Builder
	many.WriteString(`{"resourceId":"a2","currency":"NOK","balances":[`)
	for i := range 5_000 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"balanceType":"closingBooked","balanceAmount":{"amount":"%d.00","currency":"NOK"}}`, i)
	}
	many.WriteString("]")
	for i := range 20_000 {
		fmt.Fprintf(&many, `,"member%05d":1`, i)
	}
	many.WriteString("}")
	var wide accounts.Account
	require.NoError(t, json.Unmarshal([]byte(many.String()), &wide))
	require.Len(t, wide.Extra, 20_000)

	for name, v := range map[string]any{"account": a, "transaction": tr, "wide account": wide} {
		var b bytes.Buffer
		slog.New(slog.NewJSONHandler(&b, nil)).Info("read", "v", v)
		for form, out := range map[string]string{"%v": fmt.Sprintf("%v", v), "%#v": fmt.Sprintf("%#v", v), "slog": b.String()} {
			if len(out) > 8<<10 {
				t.Errorf("%s %s is %d bytes long", name, form, len(out))
			}
		}
	}
	require.Contains(t, a.String(), `currency=NOK`)
}
