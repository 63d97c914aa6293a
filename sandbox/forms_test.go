package sandbox_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/sandbox"
)

// identifying are the members of the sandbox's bodies and answers whose
// values identify a customer or an account.
var identifying = []string{"customerId", "customerNumber", "customerName", "id", "name", "engagements",
	"accounts", "cardAccounts", "resourceId", "bban", "iban", "maskedPan", "creditorName", "debtorName",
	"remittanceInformationUnstructured", "transactionDetails", "owner", "customer", "accountName", "relatedAccount"}

// No printed form (%v %+v %#v %s %q %x %d, of the value, its pointer, a
// slice and a struct holding it) and no slog form of the sandbox's types
// shows a customer number (a national identity number), a name, a
// customer, agreement or account id, an IBAN, BBAN or masked PAN, or
// remittance text; the forms still show types, currencies, amounts and
// counts, and the JSON is still the body or the sandbox's answer.
func TestFormsHideCustomerData(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("testdata", "sandbox-customers.json"))
	require.NoError(t, err)
	var customers []sandbox.Customer
	require.NoError(t, json.Unmarshal(doc, &customers))
	require.NotEmpty(t, customers)
	require.NotEmpty(t, customers[0].Agreements)

	ref := sandbox.AccountRef{IBAN: "NO8495312776066", BBAN: "95312776066"}
	orig := sandbox.Amount{Amount: "-39.90", Currency: "EUR"}
	cases := []struct {
		name  string
		v     any
		shows []string
	}{
		{"Customer", customers[0], []string{"PRIVATE", "accounts"}},
		{"Agreement", customers[0].Agreements[0], []string{"engagements"}},
		{"NewCustomer", sandbox.NewCustomer{CustomerNumber: "15867512345", CustomerType: client.Private, CustomerName: "Kari Testperson"}, []string{"PRIVATE"}},
		{"Account", sandbox.Account{ResourceID: "enc!!c2FuZGJveC1hY2M=", BBAN: "95312776066", IBAN: "NO8495312776066", Currency: "NOK", Name: "Karis konto", Product: "BRUKSKONTO", CashAccountType: "CACC", BIC: "TSTBNO22", AccountName: "Karis brukskonto", CustomerNumber: "15867512345", Links: client.Links{"self": {Href: "/v1/accounts/enc!!c2FuZGJveC1hY2M="}}}, []string{"NOK", "CACC", "self"}},
		{"NewAccount", sandbox.NewAccount{CustomerID: "enc!!Y3VzdG9tZXI=", CustomerNumber: "15867512345", BBAN: "95312776066", Currency: "NOK", Name: "Karis konto", Balance: "15234.75", CreditLine: "5000"}, []string{"NOK", "15234.75"}},
		{"CardAccount", sandbox.CardAccount{ResourceID: "enc!!Y2FyZA==", MaskedPan: "552216******4810", Currency: "NOK", Name: "Karis kort", Product: "Gold", RelatedAccount: json.RawMessage(`"enc!!cmVsYXRlZA=="`)}, []string{"NOK", "Gold"}},
		{"NewCardAccount", sandbox.NewCardAccount{CustomerNumber: "15867512345", MaskedPan: "552216******4810", Currency: "NOK", Name: "Karis kort", CreditLimit: "50000", Balance: "-1200"}, []string{"50000", "-1200"}},
		{"AccountRef", ref, nil},
		{"Transaction", sandbox.Transaction{BookingStatus: sandbox.Booked, BookingDate: "2025-03-03", TransactionAmount: sandbox.Amount{Amount: "-8750.00", Currency: "NOK"}, CreditorName: "Utleier Testesen", CreditorAccount: &sandbox.AccountRef{BBAN: "98176002468"}, DebtorName: "Kari Testperson", DebtorAccount: &ref, RemittanceInformationUnstructured: "Husleie mars", ProprietaryBankTransactionCode: "R_203"}, []string{"-8750.00 NOK", "2025-03-03", "R_203"}},
		{"CardTransaction", sandbox.CardTransaction{TransactionDate: "2025-03-03", TransactionAmount: sandbox.Amount{Amount: "-452.30", Currency: "NOK"}, OriginalAmount: &orig, Invoiced: true, TransactionDetails: "CAFE EXEMPLE PARIS FR"}, []string{"-452.30 NOK", "-39.90 EUR"}},
		{"NewAgreement", sandbox.NewAgreement{Owner: "912345678", Name: "Fjordlys Bakeri AS", Engagements: []sandbox.Engagement{{Customer: "15867512345", Account: ref, Roles: []string{sandbox.RoleView, sandbox.RoleRegister}}}}, []string{"VIEW", "REGISTER"}},
		{"Engagement", sandbox.Engagement{Customer: "15867512345", Account: ref, Roles: []string{sandbox.RoleView}}, []string{"VIEW"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			js, err := json.Marshal(tc.v)
			require.NoError(t, err)
			// An agreement's engagements are account ids; a new
			// agreement's hold roles too, which are not secret.
			secrets := slices.DeleteFunc(redacttest.Secrets(t, js, identifying, nil), func(s string) bool {
				return s == sandbox.RoleView || s == sandbox.RoleRegister
			})
			require.NotEmpty(t, secrets, "the JSON is the data: it holds the identifying values")
			forms := redacttest.AssertHidden(t, tc.v, secrets)
			redacttest.AssertHidden(t, []any{tc.v, tc.v}, secrets)
			redacttest.AssertHidden(t, struct{ V any }{tc.v}, secrets)
			for _, verb := range redacttest.Verbs {
				assert.Contains(t, forms[verb], "sandbox."+tc.name, "%s names the type", verb)
			}
			for _, s := range append(tc.shows, "[redacted]") {
				for _, form := range []string{"%v", "%d", "%#v", "slog JSON", "slog text"} {
					assert.Contains(t, forms[form], s, form)
				}
			}
		})
	}
	// Pointers print as their values.
	c := customers[0]
	redacttest.AssertHidden(t, &c, redacttest.Secrets(t, doc, identifying, nil))
	redacttest.AssertHidden(t, customers, redacttest.Secrets(t, doc, identifying, nil))
}
