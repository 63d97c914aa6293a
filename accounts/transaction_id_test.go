package accounts_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

// TestMalformedTransactionIDSetAside: a transactionId with a line
// break, a terminal escape, a C1 control, bytes that are not UTF-8
// (which encoding/json reads as U+FFFD, so that two different ids of the
// bank become one), or blank or with spaces around it is no identity of
// the entry: the entry is kept with an empty TransactionID and
// TransactionIDErr says why (matching client.ErrMalformedValue, quoting
// nothing of it), the bank's value stays in Extra, and the rest of the
// page is read as before. Such an id was handed to the caller, and to
// txsync as the entry's identity. A long id is kept.
func TestMalformedTransactionIDSetAside(t *testing.T) {
	svc := newMockService(t)
	for name, id := range map[string]string{
		"line break":    `t1\nFORGED`,
		"escape":        `t1\u001b[2JFORGED`,
		"C1 control":    `t1\u009b2JFORGED`,
		"not UTF-8":     `t1` + "\xff" + `FORGED`,
		"replacement":   `t1\ufffdFORGED`,
		"spaces around": ` t1FORGED`,
		"blank":         `  `,
	} {
		httpmock.Reset()
		body := `{"transactions":{"booked":[{"transactionId":"ok-1","transactionAmount":{"amount":"-1.00","currency":"NOK"}},` +
			`{"transactionId":"` + id + `","entryReference":"E2","transactionAmount":{"amount":"-2.00","currency":"NOK"}}],` +
			`"pending":[{"transactionId":"` + id + `","transactionAmount":{"amount":"-3.00","currency":"NOK"}}]}}`
		httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/accounts/"+acc1+"/transactions", func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(http.StatusOK, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
		page, err := svc.Transactions(t.Context(), acc1, nil, psuPresent()...)
		require.NoError(t, err, name)
		require.Len(t, page.Booked, 2, name)
		require.Len(t, page.Pending, 1, name)
		assert.Equal(t, "ok-1", page.Booked[0].TransactionID, name)
		assert.NoError(t, page.Booked[0].TransactionIDErr, name)
		for _, tr := range []accounts.Transaction{page.Booked[1], page.Pending[0]} {
			assert.Empty(t, tr.TransactionID, name)
			require.ErrorIs(t, tr.TransactionIDErr, client.ErrMalformedValue, name)
			assert.NotContains(t, tr.TransactionIDErr.Error(), "FORGED", name)
			_, kept := tr.Extra.Get("transactionId")
			assert.True(t, kept, "%s: the bank's value is kept in Extra", name)
			assert.NotContains(t, fmt.Sprintf("%v %+v", tr, tr), "FORGED", name)
		}
		assert.Equal(t, "E2", page.Booked[1].EntryReference, name)

		// Encoding the page and decoding it again gives the same entries.
		enc, err := json.Marshal(page)
		require.NoError(t, err, name)
		var back accounts.TransactionsPage
		require.NoError(t, json.Unmarshal(enc, &back), name)
		require.Len(t, back.Booked, 2, name)
		assert.Empty(t, back.Booked[1].TransactionID, name)
		assert.Error(t, back.Booked[1].TransactionIDErr, name)
	}

	// A long id, or a dot segment, is the bank's id as before.
	for _, id := range []string{strings.Repeat("x", client.MaxIDLength+1), ".."} {
		var tr accounts.Transaction
		require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"`+id+`"}`), &tr))
		assert.Equal(t, id, tr.TransactionID)
		assert.NoError(t, tr.TransactionIDErr)
	}
}

// TestMalformedCardTransactionIDSetAside: a card entry's
// cardTransactionId is set aside as an account entry's transactionId is
// (TestMalformedTransactionIDSetAside): CardTransactionID empty,
// CardTransactionIDErr matching client.ErrMalformedValue and quoting
// nothing, the bank's value in Extra, the page read as before. It was
// handed to the caller as the entry's id.
func TestMalformedCardTransactionIDSetAside(t *testing.T) {
	for name, id := range map[string]string{
		"escape":        `c1\u001b[2JFORGED`,
		"C1 control":    `c1\u009b2JFORGED`,
		"not UTF-8":     `c1` + "\xff" + `FORGED`,
		"spaces around": `c1FORGED `,
	} {
		doc := `{"cardTransactions":{"booked":[{"cardTransactionId":"ok-1"},{"cardTransactionId":"` + id + `","terminalId":"T"}]}}`
		var page accounts.CardTransactionsPage
		require.NoError(t, json.Unmarshal([]byte(doc), &page), name)
		require.Len(t, page.Booked, 2, name)
		assert.Equal(t, "ok-1", page.Booked[0].CardTransactionID, name)
		assert.NoError(t, page.Booked[0].CardTransactionIDErr, name)
		tr := page.Booked[1]
		assert.Empty(t, tr.CardTransactionID, name)
		require.ErrorIs(t, tr.CardTransactionIDErr, client.ErrMalformedValue, name)
		assert.NotContains(t, tr.CardTransactionIDErr.Error(), "FORGED", name)
		_, kept := tr.Extra.Get("cardTransactionId")
		assert.True(t, kept, name)
		assert.Equal(t, "T", tr.TerminalID, name)
		assert.NotContains(t, fmt.Sprintf("%v %+v", tr, tr), "FORGED", name)

		enc, err := json.Marshal(page)
		require.NoError(t, err, name)
		var back accounts.CardTransactionsPage
		require.NoError(t, json.Unmarshal(enc, &back), name)
		assert.Empty(t, back.Booked[1].CardTransactionID, name)
		assert.Error(t, back.Booked[1].CardTransactionIDErr, name)
	}
}
