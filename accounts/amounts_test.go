package accounts_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/money"
)

// oddAmounts are amounts a bank document may carry that no decimal can
// hold within the interface's range, or that are not numbers at all.
var oddAmounts = map[string]string{
	"exponent beyond 64": `1e400`,
	"65 digits":          `"` + strings.Repeat("9", 65) + `"`,
	"not a number":       `"abc"`,
	"boolean":            `true`,
}

// respondBody answers GET path (under baseURL) with body.
func respondBody(path string, body []byte) {
	httpmock.RegisterResponder(http.MethodGet, baseURL+path, func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewBytesResponse(http.StatusOK, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
}

// One odd amount in a balances answer does not fail the answer: the other
// balances are read, and the odd one is marked unreadable and keeps the
// bank's text, which encodes again unchanged (docs/design.md, Money).
func TestBalancesWithAnUnreadableAmount(t *testing.T) {
	for name, odd := range oddAmounts {
		t.Run(name, func(t *testing.T) {
			svc := newMockService(t)
			doc := strings.Replace(string(testdata(t, "balances.json")), `"14890.25"`, odd, 1)
			require.NotEqual(t, string(testdata(t, "balances.json")), doc)
			respondBody("/v1/accounts/"+acc1+"/balances", []byte(doc))

			got, err := svc.Balances(t.Context(), acc1, psuPresent()...)
			require.NoError(t, err, "one odd amount does not fail the answer")
			require.Len(t, got.Balances, 2)
			assert.Equal(t, money.MustParse("15234.75", "NOK"), got.Balances[0].BalanceAmount)
			assert.Equal(t, accounts.BalanceExpected, got.Balances[1].BalanceType)

			bad := got.Balances[1].BalanceAmount
			require.ErrorIs(t, bad.Err(), money.ErrUnreadable)
			assert.Equal(t, "NOK", bad.Currency)
			assert.Equal(t, `{"amount":`+odd+`,"currency":"NOK"}`, compact(t, bad.Raw()), "the bank's text is kept")

			out, err := json.Marshal(got.Balances[1])
			require.NoError(t, err, "a decoded balance encodes again")
			assert.Contains(t, string(out), compact(t, bad.Raw()))
			var back accounts.Balance
			require.NoError(t, json.Unmarshal(out, &back))
			assert.Equal(t, compact(t, bad.Raw()), back.BalanceAmount.Raw(), "round trip of the raw text")
		})
	}
}

// One odd amount in a transactions answer does not fail the page: every
// other entry is read, and the odd entry keeps the rest of its fields.
func TestTransactionsWithAnUnreadableAmount(t *testing.T) {
	for name, odd := range oddAmounts {
		t.Run(name, func(t *testing.T) {
			svc := newMockService(t)
			orig := string(testdata(t, "transactions-page1.json"))
			doc := strings.Replace(orig, `"-1249.00"`, odd, 1)
			require.NotEqual(t, orig, doc)
			respondBody("/v1/accounts/"+acc1+"/transactions", []byte(doc))

			got, err := svc.Transactions(t.Context(), acc1, &accounts.TransactionQuery{}, psuPresent()...)
			require.NoError(t, err, "one odd amount does not fail the page")
			want := page1Booked(t)
			require.Len(t, got.Booked, len(want))
			assert.Equal(t, page1Pending(t), got.Pending)

			for i := range want {
				if i == 1 {
					continue
				}
				assert.Equal(t, want[i], got.Booked[i], "entry %d is read as usual", i)
			}
			e := got.Booked[1]
			assert.Equal(t, "7497180943866773", e.TransactionID)
			assert.Equal(t, "Eksempel Kraft AS", e.CreditorName)
			assert.ErrorIs(t, e.TransactionAmount.Err(), money.ErrUnreadable)
			assert.ErrorIs(t, e.TransactionAmount.Validate(), money.ErrInvalidAmount)
			assert.Equal(t, "NOK", e.TransactionAmount.Currency)

			// The readable entries are untouched by the odd one.
			assert.NoError(t, got.Booked[0].TransactionAmount.Err())
			assert.Empty(t, got.Booked[0].TransactionAmount.Raw())
		})
	}
}

// compact returns s without insignificant spaces.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	var v json.RawMessage = json.RawMessage(s)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSpace(b.String())
}
