package reconcile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/accounts"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Strøm februar", []string{"strm", "februar"}},
		{"Str?m februar", []string{"strm", "februar"}},
		{"StrÃ¸m  FEBRUAR", []string{"strm", "februar"}},
		{"Str\uFFFDm februar", []string{"strm", "februar"}},
		{"Faktura:1001/2026", []string{"faktura", "1001", "2026"}},
		{"Husleie\u00a0mars", []string{"husleie", "mars"}},
		{"", nil},
		{"  ...  ", nil},
	} {
		assert.Equal(t, tc.want, words(tc.in), "%q", tc.in)
	}
	assert.Len(t, words(strings.Repeat("a ", 500)), maxWords, "bounded")
}

func TestTextMatches(t *testing.T) {
	t.Parallel()
	long := "Medlemskontingent idrettslaget sesongen 2026 for to barn"
	for _, tc := range []struct {
		pay, booked string
		want        bool
	}{
		{"Husleie mars", "Husleie mars", true},
		{"Husleie mars", "HUSLEIE MARS", true},
		{"Husleie mars", "Giro Husleie mars 2026-03-03", true},
		{"Strøm februar", "Str?m februar", true},
		{"Husleie mars", "Husleie april", false},
		{"Husleie mars", "Husleie", false},                       // too short to be a cut
		{"Faktura 10012", "Faktura 1001", false},                 // a cut must be long
		{long, "Medlemskontingent idrettslaget sesong", true},    // cut inside a word
		{long, "Medlemskontingent idrettslaget vinteren", false}, // not a cut
		{"Faktura 1001", "Faktura 10012", false},                 // words, not characters
		{"", "anything", false},
	} {
		assert.Equal(t, tc.want, textMatches(words(tc.pay), words(tc.booked)), "%q in %q", tc.pay, tc.booked)
	}
}

func TestEchoedKIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tx   accounts.Transaction
		want []string
	}{
		{"text alone", accounts.Transaction{RemittanceInformationUnstructured: "1234567890128"}, []string{"1234567890128"}},
		{"text among words", accounts.Transaction{RemittanceInformationUnstructured: "KID: 00123456789-, faktura 12"}, []string{"00123456789-"}},
		{"short number in text is no KID", accounts.Transaction{RemittanceInformationUnstructured: "Faktura 1234"}, nil},
		{"short KID alone", accounts.Transaction{RemittanceInformationUnstructured: " 1234 "}, []string{"1234"}},
		{"a date is no KID", accounts.Transaction{RemittanceInformationUnstructured: "2026-04-07"}, nil},
		{"structured string", accounts.Transaction{RemittanceInformationStructured: json.RawMessage(`"4711"`)}, []string{"4711"}},
		{"structured object", accounts.Transaction{RemittanceInformationStructured: json.RawMessage(`{"reference":"4711","referenceType":"KID"}`)}, []string{"4711"}},
		{"structured array", accounts.Transaction{RemittanceInformationStructuredArray: json.RawMessage(`["12",{"reference":"34"},7,"x"]`)}, []string{"12", "34"}},
		{"proprietary", accounts.Transaction{AdditionalInformationProprietary: []accounts.ProprietaryInformation{{Suffix: "1", Value: "99887"}}}, []string{"99887"}},
		{"array text", accounts.Transaction{RemittanceInformationUnstructuredArray: []string{"Betaling", "KID 5566778899"}}, []string{"5566778899"}},
		{"garbage", accounts.Transaction{RemittanceInformationStructuredArray: json.RawMessage(`{`)}, nil},
		{"structured in groups", accounts.Transaction{RemittanceInformationStructured: json.RawMessage(`"1234 5678 903"`)}, []string{"12345678903"}},
		{"structured array in groups", accounts.Transaction{RemittanceInformationStructuredArray: json.RawMessage(`["1234 5678 903"]`)}, []string{"12345678903"}},
		{"proprietary in groups", accounts.Transaction{AdditionalInformationProprietary: []accounts.ProprietaryInformation{{Suffix: "1", Value: "1234 5678 903"}}}, []string{"12345678903"}},
		{"text in groups", accounts.Transaction{RemittanceInformationUnstructured: "KID 1234 5678 903 faktura 12"}, []string{"12345678903"}},
		{"array text in groups", accounts.Transaction{RemittanceInformationUnstructuredArray: []string{"Betaling", "KID 1234\u00a05678\u00a0903"}}, []string{"12345678903"}},
		{"groups with a MOD-11 dash", accounts.Transaction{RemittanceInformationUnstructured: "KID 1000 0000 003-"}, []string{"10000000003-"}},
		{"groups with a wrong check digit", accounts.Transaction{RemittanceInformationUnstructured: "KID 1234 5678 904"}, nil},
		{"two numbers are no groups", accounts.Transaction{RemittanceInformationUnstructured: "faktura 1234 5678903"}, []string{"5678903"}},
		{"a word between", accounts.Transaction{RemittanceInformationUnstructured: "faktura 1234 kid 5678903"}, []string{"5678903"}},
		{"a piece of an order number", accounts.Transaction{RemittanceInformationUnstructured: "ordre 2026/12345678903, kid 5678903"}, []string{"5678903"}},
		{"a piece of an invoice number", accounts.Transaction{RemittanceInformationUnstructured: "INV-12345678903 A12345678903"}, nil},
	} {
		assert.Equal(t, tc.want, echoedKIDs(&tc.tx), tc.name)
	}
	many := accounts.Transaction{RemittanceInformationUnstructured: strings.Repeat("123456 ", 100) + strings.Repeat("9", 30)}
	assert.LessOrEqual(t, len(echoedKIDs(&many)), maxKIDs)
}

func TestIsKID(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"12": true, "1": false, "1234567890123456789012345": true,
		"12345678901234567890123456": false, "123-": true, "12-3": false, "-12": false, "12a": false} {
		assert.Equal(t, want, isKID(s), s)
	}
}
