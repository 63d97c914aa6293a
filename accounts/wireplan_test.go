package accounts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts/internal/decode"
)

// decodeBoth decodes data into a new T member by member and with
// encoding/json deciding every member, and fails when they differ in the
// value or in whether they fail.
func decodeBoth[T any](t *testing.T, data []byte) {
	t.Helper()
	var fast, whole T
	errFast := json.Unmarshal(data, &fast)
	decode.Memberwise = false
	errWhole := json.Unmarshal(data, &whole)
	decode.Memberwise = true
	if (errFast == nil) != (errWhole == nil) {
		t.Fatalf("%T: member by member: %v; whole: %v\n%s", fast, errFast, errWhole, data)
	}
	if errFast == nil && !reflect.DeepEqual(fast, whole) {
		t.Fatalf("%T decodes differently member by member:\n%#v\nwhole:\n%#v\n%s", fast, fast, whole, data)
	}
}

// decodeAll decodes data as every document type.
func decodeAll(t *testing.T, data []byte) {
	decodeBoth[TransactionsPage](t, data)
	decodeBoth[CardTransactionsPage](t, data)
	decodeBoth[Transaction](t, data)
	decodeBoth[CardTransaction](t, data)
	decodeBoth[Account](t, data)
	decodeBoth[[]Account](t, data)
	decodeBoth[struct{ Accounts []Account }](t, data)
	decodeBoth[[]CardAccount](t, data)
	decodeBoth[EntryDetail](t, data)
	decodeBoth[StandingOrderDetails](t, data)
	decodeBoth[ExchangeRate](t, data)
	decodeBoth[Address](t, data)
	decodeBoth[CardAccount](t, data)
	decodeBoth[BalanceReport](t, data)
	decodeBoth[Balance](t, data)
	decodeBoth[AccountReference](t, data)
}

// The documents of testdata and odd ones (names in another case, members
// twice, values that do not fit, escapes, nulls, wrong types) decode the
// same member by member as with encoding/json deciding.
func TestMemberwiseDecodingMatchesEncodingJSON(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { decodeAll(t, data) })
	}
	for _, doc := range oddDocuments {
		decodeAll(t, []byte(doc))
	}
}

var oddDocuments = []string{
	`{"transactions":{"booked":[{"TransactionID":"a","transactionId":"b"}]}}`,
	`{"transactions":{"booked":[{"transactionId":"a","transactionId":"b","bookingDate":"2025-01-02","bookingDate":null}]}}`,
	`{"transactions":{"booked":[{"transactionId":7,"creditorName":"A\u00e6\"b","bookingDate":"2025-13-01"}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"1.005","currency":"NOK"},"debtorAccount":null,"creditorAccount":{"iban":"NO9386011117947","x":[1,{"y":"<&>"}]}}]}}`,
	`{"transactions":{"booked":null,"pending":[{"entryDetails":[null,{"transactionAmount":{"amount":"1","currency":"EUR"}}]}],"information":[]}}`,
	`{"transactions":{"booked":[],"pending":[]},"balances":[{"balanceAmount":{"amount":"-0.50","currency":"NOK"},"balanceType":"expected"}]}`,
	`{"transactions":{"booked":[{"remittanceInformationUnstructuredArray":["a",null],"remittanceInformationStructured":{"reference":"1 2"}}]}}`,
	`{"transactions":{"booked":[{"currencyExchange":{"sourceCurrency":"EUR"}}]}}`,
	`{"transactions":{"booked":[{"additionalInformationProprietary2":"b","additionalInformationProprietary1":{"k":1}}]}}`,
	`{"transactions":{"booked":[{"creditorName":"\ud800","debtorName":"tab\there","batchIndicator":"yes"}]}}`,
	`{"transactions":{"booked":[{"bookingDate":"2025-01-02"} ]} , "_links" : {"next":{"href":"/v1/x?offset=1"}}}`,
	`{"transactions":{"booked":[{"bookingDate":"2025-01-02"}]}} x`,
	`{"transactions":{"booked":[{"bookingDate":"2025-01-02",}]}}`,
	`{"transactions":{"booked":[{"bookingDate":tru}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":1.5,"currency":"NOK"}}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":"12"}]}}`,
	`{"accounts":[{"resourceId":"r","iban":"NO9386011117947","name":"N","cashAccountType":"CACC","currency":"NOK","ownerName":null,"balances":[{"balanceAmount":{"amount":"1","currency":"NOK"}}]}]}`,
	`{"account":{"bban":"95312776066"},"balances":[{"balanceAmount":{"amount":"1","currency":"NOK"},"referenceDate":"2025-01-01","lastChangeDateTime":"2025-01-01T10:00:00Z"}]}`,
	`{"cardTransactions":{"booked":[{"cardTransactionId":"1","transactionAmount":{"amount":"2","currency":"NOK"},"cardAcceptorAddress":{"city":"Oslo"}}]}}`,
	`null`, `[]`, `"x"`, `{}`, `{"transactions":null}`,
}

// FuzzMemberwiseDecoding compares the two ways on any input.
func FuzzMemberwiseDecoding(f *testing.F) {
	for _, doc := range oddDocuments {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) { decodeAll(t, data) })
}

// BenchmarkMemberwiseDecoding decodes a page of 100 transactions (the
// largest testdata page, its entries repeated) member by member and with
// encoding/json deciding every member, in turn in one run, and reports
// speedup: the time with encoding/json over the time member by member.
func BenchmarkMemberwiseDecoding(b *testing.B) {
	var page struct {
		Transactions struct {
			Booked []json.RawMessage `json:"booked"`
		} `json:"transactions"`
	}
	data, err := os.ReadFile("testdata/transactions-page1.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, &page); err != nil || len(page.Transactions.Booked) == 0 {
		b.Fatalf("testdata page: %v", err)
	}
	var entries []json.RawMessage
	for len(entries) < 100 {
		entries = append(entries, page.Transactions.Booked...)
	}
	doc, err := json.Marshal(map[string]any{"transactions": map[string]any{"booked": entries[:100]}})
	if err != nil {
		b.Fatal(err)
	}
	var took [2]time.Duration
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		for i, on := range []bool{true, false} {
			decode.Memberwise = on
			start := time.Now()
			var p TransactionsPage
			if err := json.Unmarshal(doc, &p); err != nil || len(p.Booked) != 100 {
				b.Fatalf("decode: %v", err)
			}
			took[i] += time.Since(start)
		}
	}
	decode.Memberwise = true
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "speedup")
}
