package accounts_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/money"
)

// berlinGroupDocuments hold every member the Berlin Group 1.3.9 schema
// defines for each document type (accountDetails, cardAccountDetails,
// balance, transactions, cardTransaction, accountReference and their
// parts).
var berlinGroupDocuments = []struct {
	name string
	typ  any
	doc  string
}{
	{"accountDetails", new(accounts.Account), `{"resourceId":"a","iban":"NO8495312776066","bban":"95312776066",
		"msisdn":"+47 12345678","currency":"NOK","name":"Brukskonto","displayName":"Mat","product":"BRUKSKONTO",
		"cashAccountType":"CACC","status":"enabled","bic":"TSTBNO22","linkedAccounts":"b","usage":"PRIV","details":"d",
		"balances":[{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"expected"}],
		"_links":{"balances":{"href":"/v1/accounts/a/balances"}},"ownerName":"Kari Nordmann"}`},
	{"cardAccountDetails", new(accounts.CardAccount), `{"resourceId":"c","maskedPan":"552216******4810","currency":"NOK",
		"ownerName":"Kari Nordmann","name":"Mastercard","displayName":"Kort","product":"Gull","debitAccounting":false,
		"status":"enabled","usage":"PRIV","details":"d","creditLimit":{"amount":"50000.00","currency":"NOK"},
		"balances":[{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"interimBooked"}],
		"_links":{"transactions":{"href":"/v1/card-accounts/c/transactions"}}}`},
	{"balance", new(accounts.Balance), `{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"closingBooked",
		"creditLimitIncluded":true,"lastChangeDateTime":"2025-03-01T10:00:00+01:00","referenceDate":"2025-03-01",
		"lastCommittedTransaction":"E-1"}`},
	{"transactions", new(accounts.Transaction), `{"transactionId":"t","entryReference":"e","endToEndId":"x","batchIndicator":true,
		"batchNumberOfTransactions":2,"mandateId":"m","checkId":"k","creditorId":"c","bookingDate":"2025-03-01",
		"valueDate":"2025-03-02","transactionAmount":{"amount":"-2.00","currency":"EUR"},
		"currencyExchange":[{"sourceCurrency":"EUR","exchangeRate":"11.45","unitCurrency":"EUR","targetCurrency":"NOK",
		"quotationDate":"2025-03-01","contractIdentification":"f"}],
		"creditorName":"C","creditorAccount":{"iban":"DE89370400440532013000"},"creditorAgent":"COBADEFFXXX",
		"ultimateCreditor":"UC","debtorName":"D","debtorAccount":{"bban":"95312776066"},"debtorAgent":"TSTBNO22",
		"ultimateDebtor":"UD","remittanceInformationUnstructured":"r","remittanceInformationUnstructuredArray":["r"],
		"remittanceInformationStructured":"RF18539007547034","remittanceInformationStructuredArray":["RF18539007547034"],
		"entryDetails":[{"endToEndId":"x1","mandateId":"m1","checkId":"k1","creditorId":"c1",
			"transactionAmount":{"amount":"-1.00","currency":"EUR"},
			"currencyExchange":[{"sourceCurrency":"EUR","exchangeRate":"11.45","unitCurrency":"EUR","targetCurrency":"NOK","quotationDate":"2025-03-01"}],
			"creditorName":"C1","creditorAccount":{"iban":"DE89370400440532013000"},"creditorAgent":"COBADEFFXXX",
			"ultimateCreditor":"UC1","debtorName":"D1","debtorAccount":{"bban":"95312776066"},"debtorAgent":"TSTBNO22",
			"ultimateDebtor":"UD1","remittanceInformationUnstructured":"r1","remittanceInformationUnstructuredArray":["r1"],
			"remittanceInformationStructured":"s1","remittanceInformationStructuredArray":["s1"],"purposeCode":"GDDS"}],
		"additionalInformation":"a","additionalInformationStructured":{"standingOrderDetails":{"startDate":"2025-01-01",
			"frequency":"Monthly","endDate":"2025-12-31","executionRule":"following","withinAMonthFlag":true,
			"monthsOfExecution":["1","7"],"multiplicator":1,"dayOfExecution":"3","limitAmount":{"amount":"10.00","currency":"EUR"}}},
		"purposeCode":"RENT","bankTransactionCode":"PMNT-RDDT-ESDD","proprietaryBankTransactionCode":"R_710",
		"balanceAfterTransaction":{"balanceAmount":{"amount":"5.00","currency":"EUR"},"balanceType":"interimBooked"},
		"_links":{"transactionDetails":{"href":"/v1/accounts/a/transactions/t"}}}`},
	{"cardTransaction", new(accounts.CardTransaction), `{"cardTransactionId":"ct","terminalId":"T1","transactionDate":"2025-03-01",
		"acceptorTransactionDateTime":"2025-03-01T12:00:00+01:00","bookingDate":"2025-03-03",
		"transactionAmount":{"amount":"-452.30","currency":"NOK"},
		"currencyExchange":[{"sourceCurrency":"EUR","exchangeRate":"11.336","unitCurrency":"EUR","targetCurrency":"NOK","quotationDate":"2025-03-01"}],
		"originalAmount":{"amount":"-39.90","currency":"EUR"},"markupFee":{"amount":"-4.52","currency":"NOK"},
		"markupFeePercentage":"1","cardAcceptorId":"A1","cardAcceptorAddress":{"streetName":"Rue X","buildingNumber":"1",
		"townName":"Paris","postCode":"75001","country":"FR"},"cardAcceptorPhone":"+33-123456","merchantCategoryCode":"5812",
		"maskedPan":"552216******4810","transactionDetails":"CAFE","invoiced":false,"proprietaryBankTransactionCode":"P"}`},
	{"accountReference", new(accounts.AccountReference), `{"iban":"NO8495312776066","bban":"95312776066","pan":"5522160000004810",
		"maskedPan":"552216******4810","msisdn":"+47 12345678","currency":"NOK","otherAccountIdentification":"30-163033-7"}`},
}

// Every member of the Berlin Group 1.3.9 schema has a field: none ends up
// in Extra, and the document encodes back unchanged.
func TestBerlinGroupMembersAreDecoded(t *testing.T) {
	t.Parallel()
	for _, tc := range berlinGroupDocuments {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := roundTrip(t, tc.typ, []byte(tc.doc))
			require.NotNil(t, v)
			assertNoExtra(t, reflect.ValueOf(v), tc.name)
			enc, err := json.Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, tc.doc, string(enc))
		})
	}
}

// assertNoExtra fails for any non-empty Extra field reachable from v.
func assertNoExtra(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			assertNoExtra(t, v.Elem(), path)
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[accounts.Extra]() {
			assert.Empty(t, v.Interface(), "%s: members no field names", path)
			return
		}
		for i := range v.Len() {
			assertNoExtra(t, v.Index(i), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				assertNoExtra(t, v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	}
}

// Members no field names, and named members whose value does not fit the
// field, are kept in Extra in the bank's order; the rest of the entry is
// read, and the entry encodes back with them.
func TestUnknownMembersAreKept(t *testing.T) {
	t.Parallel()
	doc := `{"transactionId":7,"creditorName":"Utleier","bankReference":{"kind":"KID", "value":"1234567890128"},
		"bookingDate":"2025-13-40","transactionAmount":{"amount":"-1.00","currency":"NOK"},
		"creditorAccount":{"bban":"98176002468","clearingCode":"NO"},"additionalInformationProprietary1":"p"}`
	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(doc), &tr), "odd members do not fail the entry")
	assert.Equal(t, "Utleier", tr.CreditorName)
	assert.Equal(t, money.MustParse("-1.00", "NOK"), tr.TransactionAmount)
	assert.Empty(t, tr.TransactionID)
	assert.True(t, tr.BookingDate.IsZero())
	assert.Equal(t, accounts.Extra{
		{Name: "transactionId", Value: json.RawMessage(`7`)},
		{Name: "bankReference", Value: json.RawMessage(`{"kind":"KID","value":"1234567890128"}`)},
		{Name: "bookingDate", Value: json.RawMessage(`"2025-13-40"`)},
	}, tr.Extra)
	assert.Equal(t, accounts.Extra{{Name: "clearingCode", Value: json.RawMessage(`"NO"`)}}, tr.CreditorAccount.Extra)
	v, ok := tr.Proprietary(1)
	assert.True(t, ok)
	assert.Equal(t, "p", v)

	var ref struct{ Kind, Value string }
	found, err := tr.Extra.Decode("bankReference", &ref)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "1234567890128", ref.Value)
	found, err = tr.Extra.Decode("missing", &ref)
	assert.NoError(t, err)
	assert.False(t, found)

	enc, err := json.Marshal(tr)
	require.NoError(t, err)
	assert.JSONEq(t, doc, string(enc))
	roundTrip(t, &tr, []byte(doc))
}
