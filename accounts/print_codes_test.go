package accounts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
)

// TestPrintedFormsShowCodesOnlyAsCodes: the codes a printed or slog form
// shows in clear (a product, a BIC and an agent's BIC, a purpose code,
// the bank transaction codes, a merchant category code, a country, a
// standing order's frequency, execution rule, day and months, the suffix of a
// proprietary information) are the bank's text, as an enumeration is. A
// bank or a gateway that puts an account number, an IBAN, a national
// identity number or a card number in one, or a line break that forges a
// log line, must not have it written into the TPP's logs: such a value
// shows as OTHER. Before, each was shown as sent (cut to 256 bytes).
// What reads as the interface's codes is still shown.
func TestPrintedFormsShowCodesOnlyAsCodes(t *testing.T) {
	const iban, nin, pan, forged = "NO9386011117947", "01017012345", "5522161234564810", "R_1\nlevel=ERROR FORGED"
	docs := func(v string) []any {
		var a accounts.Account
		require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"a1","product":"`+v+`","bic":"`+v+`"}`), &a))
		var ca accounts.CardAccount
		require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"c1","product":"`+v+`"}`), &ca))
		var tr accounts.Transaction
		require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"t1","creditorAgent":"`+v+`","debtorAgent":"`+v+
			`","purposeCode":"`+v+`","bankTransactionCode":"`+v+`","proprietaryBankTransactionCode":"`+v+
			`","additionalInformationProprietary":[{"suffix":"`+v+`","value":"x"}],"entryDetails":[{"purposeCode":"`+v+`"}],`+
			`"additionalInformationStructured":{"standingOrderDetails":{"frequency":"`+v+`","executionRule":"`+v+
			`","dayOfExecution":"`+v+`","monthsOfExecution":["1","`+v+`"]}}}`), &tr))
		var ct accounts.CardTransaction
		require.NoError(t, json.Unmarshal([]byte(`{"cardTransactionId":"c1","merchantCategoryCode":"`+v+
			`","proprietaryBankTransactionCode":"`+v+`","cardAcceptorAddress":{"country":"`+v+`"}}`), &ct))
		return []any{a, ca, tr, ct}
	}
	for _, secret := range []string{iban, nin, pan, forged} {
		raw, err := json.Marshal(secret)
		require.NoError(t, err)
		for _, v := range docs(string(raw[1 : len(raw)-1])) {
			var js, text bytes.Buffer
			slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
			slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
			for form, out := range map[string]string{"%v": fmt.Sprint(v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v),
				"slog json": js.String(), "slog text": text.String()} {
				s := secret
				if secret == forged {
					s = "FORGED"
				}
				if strings.Contains(out, s) {
					t.Errorf("%T: %s shows %q: %s", v, form, s, out)
				}
			}
		}
	}

	var a accounts.Account
	require.NoError(t, json.Unmarshal([]byte(`{"resourceId":"a1","product":"Kredittkort Gull","bic":"TSTBNO22"}`), &a))
	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"t1","creditorAgent":"DNBANOKKXXX","purposeCode":"SALA",`+
		`"bankTransactionCode":"PMNT-RCDT-ESCT","proprietaryBankTransactionCode":"R_203",`+
		`"additionalInformationStructured":{"standingOrderDetails":{"frequency":"Monthly","executionRule":"following","dayOfExecution":"31","monthsOfExecution":["1","7"]}}}`), &tr))
	var ct accounts.CardTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"cardTransactionId":"c1","merchantCategoryCode":"5411","cardAcceptorAddress":{"country":"NO"}}`), &ct))
	out := fmt.Sprint(a) + fmt.Sprint(tr) + fmt.Sprint(ct)
	for _, s := range []string{`product="Kredittkort Gull"`, "bic=TSTBNO22", "creditorAgent=DNBANOKKXXX", "purposeCode=SALA",
		"bankTransactionCode=PMNT-RCDT-ESCT", "proprietaryBankTransactionCode=R_203", "frequency=Monthly",
		"executionRule=following", "dayOfExecution=31", "monthsOfExecution=[1 7]", "merchantCategoryCode=5411", "country=NO"} {
		assert.Contains(t, out, s)
	}
}
