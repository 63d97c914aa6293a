package accounts_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// identifying are the members of the bank's documents whose values
// identify the PSU, a counterparty or an account (ids, names, national
// identity numbers, addresses, remittance and other free text of the
// bank), and the unknown members the synthetic documents below add.
var identifying = []string{
	"resourceId", "bban", "iban", "pan", "maskedPan", "maskedPAN", "msisdn", "name", "displayName", "ownerName",
	"accountName", "customerNumber", "linkedAccounts", "details", "otherAccountIdentification", "relatedAccount",
	"lastCommittedTransaction", "transactionId", "entryReference", "endToEndId", "mandateId", "checkId",
	"creditorId", "creditorName", "debtorName", "ultimateCreditor", "ultimateDebtor", "additionalInformation",
	"cardTransactionId", "terminalId", "cardAcceptorId", "cardAcceptorPhone", "transactionDetails", "streetName",
	"buildingNumber", "townName", "postCode", "contractIdentification", "id", "engagements", "nationalIdentityNumber",
}

// identifyingPrefixes cover remittanceInformation* and the
// additionalInformationProprietaryN members.
var identifyingPrefixes = []string{"remittanceInformation", "additionalInformationProprietary"}

// Synthetic documents with the members the platform's examples lack: the
// sandbox's extras, an unknown member carrying a national identity
// number, a card acceptor's address, a batch entry's details.
const (
	fullAccount = `{"resourceId":"enc!!Zm9ybXMtYWNjb3VudA=","bban":"12345678903","iban":"NO9312345678903",
		"msisdn":"+4799887766","currency":"NOK","name":"Kari sin konto","displayName":"Feriepenger Kari",
		"product":"BRUKSKONTO","cashAccountType":"CACC","status":"enabled","bic":"TSTBNO22",
		"linkedAccounts":"enc!!bGlua2VkLWFjY291bnQ=","usage":"PRIV","details":"Konto for Kari Nordmann",
		"ownerName":"Kari Nordmann","accountName":"Karis brukskonto","customerNumber":"15867512345",
		"creditLine":5000,"nationalIdentityNumber":"01017012345",
		"balances":[{"balanceAmount":{"amount":"1200.50","currency":"NOK"},"balanceType":"interimAvailable",
			"lastCommittedTransaction":"ENTRYREF-998877"}],
		"_links":{"self":{"href":"/v1/accounts/enc!!Zm9ybXMtYWNjb3VudA="}}}`
	fullCardAccount = `{"resourceId":"enc!!Y2FyZC1mb3Jtcw==","maskedPan":"525412******3241","currency":"NOK",
		"ownerName":"Ola Nordmann","displayName":"Olas kort","debitAccounting":false,"details":"Kort for Ola",
		"name":"Mastercard Ola","product":"Gold","status":"enabled","usage":"PRIV",
		"creditLimit":{"amount":"50000.00","currency":"NOK"},"relatedAccount":"enc!!cmVsYXRlZC1jYXJk",
		"_links":{"transactions":{"href":"/v1/card-accounts/enc!!Y2FyZC1mb3Jtcw==/transactions"}}}`
	fullCardTransaction = `{"cardTransactionId":"CT-55667788","terminalId":"TERM-00417","transactionDate":"2025-03-03",
		"acceptorTransactionDateTime":"2025-03-03T12:30:00+01:00","bookingDate":"2025-03-05",
		"transactionAmount":{"amount":"-452.30","currency":"NOK"},"originalAmount":{"amount":"-39.90","currency":"EUR"},
		"markupFee":{"amount":"7.50","currency":"NOK"},"markupFeePercentage":"1.75","cardAcceptorId":"ACQ-778899",
		"cardAcceptorAddress":{"streetName":"Rue Exemple","buildingNumber":"12B","townName":"Lyon","postCode":"69001","country":"FR"},
		"cardAcceptorPhone":"+33123456789","merchantCategoryCode":"5812","maskedPan":"525412******3241",
		"transactionDetails":"CAFE EXEMPLE LYON","invoiced":true}`
	batchTransaction = `{"transactionId":"BATCH-20250303","bookingDate":"2025-03-03","batchIndicator":true,
		"batchNumberOfTransactions":2,"transactionAmount":{"amount":"-300.00","currency":"NOK"},
		"entryDetails":[{"endToEndId":"E2E-BATCH-1","transactionAmount":{"amount":"-100.00","currency":"NOK"},
			"creditorName":"Per Hansen","creditorAccount":{"bban":"98765432106"},"ultimateCreditor":"Hansen Holding",
			"remittanceInformationUnstructured":"Gave til Per"},
		{"endToEndId":"E2E-BATCH-2","transactionAmount":{"amount":"-200.00","currency":"NOK"},
			"creditorName":"Lise Berg","creditorAccount":{"iban":"NO0298765432112"},"ultimateDebtor":"Kari Nordmann",
			"remittanceInformationStructuredArray":[{"reference":"RF712348231"}]}]}`
)

// decodeAs decodes doc into a new T and returns a pointer to it.
func decodeAs[T any](t *testing.T, doc []byte) *T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(doc, &v))
	return &v
}

// roundTrips asserts that v's JSON decodes to a value with the same JSON
// and that every identifying value it holds is one of its document's
// (secrets): the JSON is the data, not a redacted form.
func roundTrips[T any](t *testing.T, v T, secrets []string) {
	t.Helper()
	js, err := json.Marshal(v)
	require.NoError(t, err)
	var again T
	require.NoError(t, json.Unmarshal(js, &again))
	js2, err := json.Marshal(again)
	require.NoError(t, err)
	assert.JSONEq(t, string(js), string(js2), "JSON round trip of %T", v)
	own := redacttest.Secrets(t, js, identifying, identifyingPrefixes)
	for _, s := range own {
		assert.Contains(t, secrets, s, "%T's JSON is the document's data", v)
	}
}

// checkForms checks v, &v and []T{v, v}: no form shows a secret, the
// value's form shows the facts in shows, and v's JSON is its data.
func checkForms[T any](t *testing.T, name string, v T, secrets, shows []string, wantJSON bool) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		require.NotEmpty(t, secrets, "the case has identifying values to hide")
		forms := redacttest.AssertHidden(t, v, secrets)
		redacttest.AssertHidden(t, &v, secrets)
		redacttest.AssertHidden(t, []T{v, v}, secrets)
		redacttest.AssertHidden(t, struct{ Doc T }{v}, secrets)
		typeName := reflect.TypeFor[T]().String()
		for _, verb := range redacttest.Verbs {
			assert.Contains(t, forms[verb], typeName, "%s names the type", verb)
		}
		for _, s := range shows {
			assert.Contains(t, forms["%v"], s)
			assert.Contains(t, forms["slog JSON"], s)
			assert.Contains(t, forms["slog text"], s)
		}
		if wantJSON {
			roundTrips(t, v, secrets)
		}
	})
}

// No printed form (%v %+v %#v %s %q %x %d, of the value, its pointer, a
// slice and a struct holding it) and no slog form (JSON and text) of the
// package's documents shows an account id, a name, a national identity
// number, an address or remittance text; the JSON of each document is
// still the bank's data and decodes to the same value.
func TestFormsHideIdentifyingData(t *testing.T) {
	t.Parallel()
	type accountList struct{ Accounts []accounts.Account }
	type cardList struct{ CardAccounts []accounts.CardAccount }
	type agreementList struct{ Agreements []accounts.Agreement }
	type details struct {
		TransactionsDetails accounts.Transaction `json:"transactionsDetails"`
	}
	secretsOf := func(doc []byte) []string {
		return redacttest.Secrets(t, doc, identifying, identifyingPrefixes)
	}

	doc := testdata(t, "accounts.json")
	for i, a := range decodeAs[accountList](t, doc).Accounts {
		raw, err := json.Marshal(a)
		require.NoError(t, err)
		checkForms(t, fmt.Sprint("accounts.json ", i), a, secretsOf(raw), []string{a.Currency, string(a.CashAccountType)}, true)
	}
	acc := *decodeAs[accounts.Account](t, []byte(fullAccount))
	checkForms(t, "Account with every field", acc, secretsOf([]byte(fullAccount)),
		[]string{"NOK", "CACC", "PRIV", "1200.50 NOK", "interimAvailable", "5000", "nationalIdentityNumber", "[redacted]"}, true)
	checkForms(t, "Extra", acc.Extra, secretsOf([]byte(fullAccount)), []string{"nationalIdentityNumber"}, false)
	checkForms(t, "Member", acc.Extra[0], secretsOf([]byte(fullAccount)), []string{"nationalIdentityNumber"}, false)
	checkForms(t, "Balance", acc.Balances[0], []string{"ENTRYREF-998877"}, []string{"1200.50 NOK"}, true)

	doc = testdata(t, "balances.json")
	rep := *decodeAs[accounts.BalanceReport](t, doc)
	checkForms(t, "BalanceReport", rep, secretsOf(doc), []string{"closingBooked", "NOK"}, true)
	checkForms(t, "AccountReference", *rep.Account, secretsOf(doc), nil, true)
	doc = testdata(t, "card-account-balances.json")
	checkForms(t, "card BalanceReport", *decodeAs[accounts.BalanceReport](t, doc), secretsOf(doc), []string{"NOK"}, true)

	doc = testdata(t, "card-accounts.json")
	for _, a := range decodeAs[cardList](t, doc).CardAccounts {
		raw, err := json.Marshal(a)
		require.NoError(t, err)
		checkForms(t, "card-accounts.json", a, secretsOf(raw), []string{a.Currency}, true)
	}
	card := *decodeAs[accounts.CardAccount](t, []byte(fullCardAccount))
	checkForms(t, "CardAccount with every field", card, secretsOf([]byte(fullCardAccount)),
		[]string{"50000.00 NOK", "Gold", "debitAccounting"}, true)

	for _, name := range []string{"transactions-page1.json", "transactions-page2.json", "transactions-proprietary.json"} {
		doc := testdata(t, name)
		page := *decodeAs[accounts.TransactionsPage](t, doc)
		require.NotEmpty(t, page.Booked)
		checkForms(t, name, page, secretsOf(doc), []string{"booked"}, true)
		checkForms(t, name+" Transaction", page.Booked[0], secretsOf(doc), []string{page.Booked[0].TransactionAmount.String()}, true)
	}
	doc = testdata(t, "transactions-proprietary.json")
	page := *decodeAs[accounts.TransactionsPage](t, doc)
	require.NotEmpty(t, page.Booked[0].AdditionalInformationProprietary)
	checkForms(t, "ProprietaryInformation", page.Booked[0].AdditionalInformationProprietary[0], secretsOf(doc), []string{"suffix"}, false)

	doc = testdata(t, "transaction-details.json")
	tx := decodeAs[details](t, doc).TransactionsDetails
	checkForms(t, "transaction details", tx, secretsOf(doc),
		[]string{"-8750.00 NOK", "2025-03-03", "RENT", "PMNT-ICDT-STDO", "Monthly", "9000.00 NOK", "11.4512", "debtorName"}, true)
	checkForms(t, "ExchangeRate", tx.CurrencyExchange[0], []string{"FX-1"}, []string{"11.4512"}, true)
	checkForms(t, "AdditionalInformationStructured", *tx.AdditionalInformationStructured, secretsOf(doc), []string{"Monthly"}, true)
	batch := *decodeAs[accounts.Transaction](t, []byte(batchTransaction))
	checkForms(t, "batch Transaction", batch, secretsOf([]byte(batchTransaction)), []string{"-300.00 NOK", "-200.00 NOK"}, true)
	checkForms(t, "EntryDetail", batch.EntryDetails[0], secretsOf([]byte(batchTransaction)), []string{"-100.00 NOK"}, true)

	doc = testdata(t, "card-transactions.json")
	cpage := *decodeAs[accounts.CardTransactionsPage](t, doc)
	checkForms(t, "CardTransactionsPage", cpage, secretsOf(doc), []string{"booked"}, true)
	checkForms(t, "card-transactions.json CardTransaction", cpage.Booked[0], secretsOf(doc), []string{"-452.30 NOK", "-39.90 EUR"}, true)
	ct := *decodeAs[accounts.CardTransaction](t, []byte(fullCardTransaction))
	checkForms(t, "CardTransaction with every field", ct, secretsOf([]byte(fullCardTransaction)),
		[]string{"-452.30 NOK", "7.50 NOK", "5812", "FR", "2025-03-03T12:30:00+01:00"}, true)
	checkForms(t, "Address", *ct.CardAcceptorAddress, secretsOf([]byte(fullCardTransaction)), []string{"FR"}, true)

	doc = testdata(t, "agreements.json")
	ags := decodeAs[agreementList](t, doc).Agreements
	require.NotEmpty(t, ags)
	checkForms(t, "Agreement", ags[0], secretsOf(doc), nil, true)

	doc = testdata(t, "bank-offered-consent-201.json")
	consent := *decodeAs[accounts.Consent](t, doc)
	require.NotEmpty(t, consent.SCARedirect())
	checkForms(t, "Consent", consent, secretsOf(doc), []string{"scaRedirect"}, true)

}

// The secrets the test looks for are in the documents: a check that finds
// none proves nothing.
func TestFormsSecretsFound(t *testing.T) {
	t.Parallel()
	s := redacttest.Secrets(t, []byte(fullAccount), identifying, identifyingPrefixes)
	for _, want := range []string{"enc!!Zm9ybXMtYWNjb3VudA=", "12345678903", "NO9312345678903", "Kari Nordmann", "15867512345", "01017012345", "ENTRYREF-998877"} {
		assert.Contains(t, s, want)
	}
	assert.False(t, strings.Contains(strings.Join(s, "|"), "NOK"), "currencies are not secrets")
}
