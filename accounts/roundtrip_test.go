package accounts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

// errorDocument is the body of a bank's error answer.
type errorDocument struct {
	TPPMessages []client.TPPMessage `json:"tppMessages"`
	Links       client.Links        `json:"_links,omitzero"`
}

// documentType returns a new pointer to the type the SDK decodes doc
// into, chosen by the document's members, or nil for an unknown shape.
func documentType(doc []byte) any {
	var members map[string]json.RawMessage
	if json.Unmarshal(doc, &members) != nil {
		return nil
	}
	has := func(name string) bool { _, ok := members[name]; return ok }
	switch {
	case has("tppMessages"):
		return new(errorDocument)
	case has("accounts"):
		return new(struct {
			Accounts []accounts.Account `json:"accounts"`
		})
	case has("cardAccounts"):
		return new(struct {
			CardAccounts []accounts.CardAccount `json:"cardAccounts"`
		})
	case has("agreements"):
		return new(struct {
			Agreements []accounts.Agreement `json:"agreements"`
		})
	case has("transactionsDetails"):
		return new(struct {
			Details accounts.Transaction `json:"transactionsDetails"`
		})
	case has("transactions"):
		return new(accounts.TransactionsPage)
	case has("cardTransactions"):
		return new(accounts.CardTransactionsPage)
	case has("balances") && !has("resourceId"):
		return new(accounts.BalanceReport)
	case has("account"):
		return new(struct {
			Account accounts.Account `json:"account"`
		})
	case has("cardAccount"):
		return new(struct {
			CardAccount accounts.CardAccount `json:"cardAccount"`
		})
	case len(members) == 1 && has("_links"):
		return new(accounts.Consent)
	}
	return nil
}

// roundTrip decodes doc into a new value of v's type, encodes it, decodes
// the encoding and checks that both values are the same document and
// that encoding is stable. It returns the first decoded value, or nil
// when doc does not decode.
func roundTrip(t testing.TB, v any, doc []byte) any {
	t.Helper()
	typ := reflect.TypeOf(v).Elem()
	first := reflect.New(typ).Interface()
	if json.Unmarshal(doc, first) != nil {
		return nil
	}
	enc, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("a decoded %v does not encode: %v\ndocument: %s", typ, err, doc)
	}
	second := reflect.New(typ).Interface()
	if err := json.Unmarshal(enc, second); err != nil {
		t.Fatalf("the encoding of a decoded %v does not decode: %v\nencoding: %s", typ, err, enc)
	}
	if path, ok := sameDocument(reflect.ValueOf(first).Elem(), reflect.ValueOf(second).Elem(), typ.String()); !ok {
		t.Fatalf("decode → encode → decode changed %s\ndocument: %s\nencoding: %s", path, doc, enc)
	}
	again, err := json.Marshal(second)
	if err != nil || !bytes.Equal(enc, again) {
		t.Fatalf("encoding is not stable (%v)\nfirst:  %s\nsecond: %s", err, enc, again)
	}
	return first
}

var (
	decimalType = reflect.TypeFor[decimal.Decimal]()
	rawType     = reflect.TypeFor[json.RawMessage]()
)

// unexportedCaches are unexported fields that cache the bank's text
// rather than hold part of the value: the pages' digest of the pending
// list as sent, used to recognise the same list on a later page.
var unexportedCaches = map[string]bool{"pendingSum": true}

// sameDocument reports whether a and b hold the same document, and the
// path of the first difference. Decimals compare by value (12.3 equals
// 12.30); json.RawMessage values compare as encoding/json writes them;
// everything else, nil against empty included, compares exactly.
func sameDocument(a, b reflect.Value, path string) (string, bool) {
	if a.Type() != b.Type() {
		return path, false
	}
	switch {
	case a.Type() == decimalType:
		if a.CanInterface() {
			return path, a.Interface().(decimal.Decimal).Equal(b.Interface().(decimal.Decimal))
		}
	case a.Type() == rawType:
		if a.IsNil() != b.IsNil() {
			return path, false
		}
		return path, bytes.Equal(compactJSON(a.Bytes()), compactJSON(b.Bytes()))
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return path, a.IsNil() == b.IsNil()
		}
		return sameDocument(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if !f.IsExported() && unexportedCaches[f.Name] {
				continue
			}
			if p, ok := sameDocument(a.Field(i), b.Field(i), path+"."+f.Name); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, false
		}
		fallthrough
	case reflect.Array:
		for i := range a.Len() {
			if p, ok := sameDocument(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]", path, k), false
			}
			if p, ok := sameDocument(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); !ok {
				return p, false
			}
		}
		return path, true
	case reflect.String:
		return path, a.String() == b.String()
	case reflect.Bool:
		return path, a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return path, a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return path, a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return path, a.Float() == b.Float()
	}
	return path, a.IsZero() == b.IsZero()
}

// compactJSON is v as encoding/json writes a json.RawMessage.
func compactJSON(v []byte) []byte {
	var c, h bytes.Buffer
	if json.Compact(&c, v) != nil {
		return v
	}
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes()
}

// Every document in testdata decodes, encodes and decodes to the same
// value, encodes to the same members it was decoded from, and has a
// typed field for each of its members.
func TestTestdataRoundTrip(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			doc, err := os.ReadFile(file)
			require.NoError(t, err)
			target := documentType(doc)
			require.NotNil(t, target, "no SDK type for this document: teach documentType its shape")
			v := roundTrip(t, target, doc)
			require.NotNil(t, v, "the document decodes")
			enc, err := json.Marshal(v)
			require.NoError(t, err)
			assert.JSONEq(t, string(doc), string(enc), "nothing the bank sent is lost or added")
			// Every member of a recorded answer has a typed field: none
			// is left for the caller to dig out of Extra.
			assertNoExtra(t, reflect.ValueOf(v), filepath.Base(file))
		})
	}
}

// A card transactions page whose pending entry has no transactionAmount
// encodes again (it used to fail in money.Amount.MarshalJSON), and
// decodes back to the same page.
func TestCardTransactionsPageWithoutAmountRoundTrips(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"cardAccount":{"maskedPan":"552216******4810"},"cardTransactions":{"booked":[],` +
		`"pending":[{"cardTransactionId":"1","transactionDate":"2025-03-10","transactionDetails":"RESERVASJON"}],` +
		`"_links":{"self":{"href":"/v1/card-accounts/c/transactions","verbs":["GET"]}}}}`)
	var p accounts.CardTransactionsPage
	require.NoError(t, json.Unmarshal(doc, &p))
	require.Len(t, p.Pending, 1)
	assert.True(t, p.Pending[0].TransactionAmount.IsZero())

	enc, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(enc))
	roundTrip(t, &p, doc)
}

// Pages encode in the bank's shape (they used to encode their Go field
// names, which did not decode back).
func TestTransactionsPageEncodesTheBankShape(t *testing.T) {
	t.Parallel()
	doc := testdata(t, "transactions-page1.json")
	var p accounts.TransactionsPage
	require.NoError(t, json.Unmarshal(doc, &p))
	enc, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(enc))
	var back accounts.TransactionsPage
	require.NoError(t, json.Unmarshal(enc, &back))
	assert.Equal(t, p.Booked, back.Booked)
	assert.Equal(t, p.Pending, back.Pending)
	assert.Equal(t, p.Next(), back.Next())
}

// roundTripSeeds are documents that exercise the decoders' edges.
var roundTripSeeds = []string{
	`{"transactions":{"booked":[{"additionalInformationProprietary":1,"additionalInformationProprietaryx":null}],"pending":null}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"1.234","currency":"NOK"},"bookingDate":"2025-03-01"}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"12.3","currency":"XXQ"}}],"pending":"x","information":[{"transactionId":"s"}]},"balances":[{"balanceType":"expected"}]}`,
	`{"transactions":{"booked":[{"transactionId":7,"TRANSACTIONID":"a","bookingDate":"2025-13-40","x":{ "a" : "<b>" }}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"123456789012345678901234567890","currency":"NOK"}}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"0.0010","currency":""}},{"transactionAmount":{"amount":"-150e-3","currency":"XX"}}]}}`,
	`{"transactions":{"booked":[{"transactionAmount":{"amount":"1e60","currency":"NOK"}},{"transactionAmount":{"amount":".00123","currency":"JPY"}}]}}`,
	`{"transactions":{"booked":[{"maſkedPan":"x","creditorAccount":{"iban":"NO1","z":1},"creditorAccount":5}]}}`,
	`{"transactions":{"booked":[{"entryDetails":[{"transactionAmount":{"amount":"1","currency":"EUR"},"q":[]}],"currencyExchange":[{"quotationDate":"bad"}]}]}}`,
	`{"cardTransactions":{"booked":[{}],"pending":[{"markupFee":{"amount":"0.5","currency":"ZZZ"},"cardAcceptorAddress":{"townName":"Oslo","country":"NO","x":true}}],"_links":{}},"debitAccounting":true}`,
	`{"accounts":[{"resourceId":"a","creditLine":1e99999,"balances":[]},{"resourceId":5,"creditLine":"12.50","_links":{}}]}`,
	`{"balances":[{"balanceAmount":{"amount":"-0.5","currency":""},"balanceType":"x","y":null}],"_links":null}`,
	`{"balances":[{"balanceAmount":{ "amount" : "a<b", "currency":"NOK"}},{"balanceAmount":[1, 2]},{"balanceAmount":{"amount":1e400}}]}`,
	`{"resourceId":"c","creditLimit":{"amount":"50000.000","currency":"NOK"},"maskedPan":"5522"}`,
	`[]`, `null`, `{}`, `"x"`,
}

// documentTypes are the SDK types the fuzz property decodes every input
// into.
var documentTypes = []any{
	new(accounts.TransactionsPage), new(accounts.CardTransactionsPage), new(accounts.BalanceReport),
	new(accounts.Account), new(accounts.CardAccount), new(accounts.Transaction), new(accounts.CardTransaction),
	new(accounts.Balance), new(accounts.AccountReference),
	new(struct {
		Accounts []accounts.Account `json:"accounts"`
	}),
}

// TestRoundTripSeeds runs the fuzz property over its seeds, so that every
// test run checks them.
func TestRoundTripSeeds(t *testing.T) {
	t.Parallel()
	decoded := 0
	for _, seed := range roundTripSeeds {
		for _, typ := range documentTypes {
			if roundTrip(t, typ, []byte(seed)) != nil {
				decoded++
			}
		}
	}
	assert.Greater(t, decoded, len(roundTripSeeds), "the seeds decode")
}

// FuzzDocumentRoundTrip: whatever a bank sends, a document the SDK decodes
// encodes again, and decoding that encoding gives the same value.
func FuzzDocumentRoundTrip(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		if doc, err := os.ReadFile(file); err == nil {
			f.Add(doc)
		}
	}
	for _, seed := range roundTripSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 1<<16 || strings.Count(string(doc), "[")+strings.Count(string(doc), "{") > 1000 {
			return
		}
		for _, typ := range documentTypes {
			roundTrip(t, typ, doc)
		}
	})
}
