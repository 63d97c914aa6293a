package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkToday is the bank date the unit tests of the body checks run on.
var checkToday = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// problem is what a rejection is compared on.
type problem struct {
	Status int
	Code   string
	Path   string
}

func problemOf(e *apiError) *problem {
	if e == nil {
		return nil
	}
	return &problem{Status: e.status, Code: e.msg.Code, Path: e.msg.Path}
}

// body is a JSON object that a test case edits.
type body map[string]any

// bytes encodes b; a map of JSON values always encodes.
func (b body) bytes() []byte {
	out, _ := json.Marshal(b)
	return out
}

// validNDCT returns a valid domestic payment between two valid BBANs.
func validNDCT() body {
	return body{
		"instructedAmount":                  map[string]any{"amount": "1250.00", "currency": "NOK"},
		"creditorName":                      "Ola Eksempel",
		"creditorAccount":                   map[string]any{"bban": "91026527436", "currency": "NOK"},
		"creditorAddress":                   map[string]any{"country": "NO"},
		"debtorAccount":                     map[string]any{"bban": "95312776066", "currency": "NOK"},
		"remittanceInformationUnstructured": "Hyttetur påske",
	}
}

func validSEPA() body {
	return body{
		"endToEndIdentification": "E2E-1",
		"instructedAmount":       map[string]any{"amount": "100.00", "currency": "EUR"},
		"creditorName":           "Max Mustermann",
		"creditorAccount":        map[string]any{"iban": "DE89370400440532013000", "currency": "EUR"},
		"debtorAccount":          map[string]any{"iban": "NO9386011117947", "currency": "EUR"},
	}
}

func validPeriodic() body {
	b := validNDCT()
	b["startDate"] = "2026-12-01"
	b["frequency"] = "Monthly"
	return b
}

func validBulk() body {
	entry := validNDCT()
	delete(entry, "debtorAccount")
	return body{
		"batchBookingPreferred": true,
		"debtorAccount":         map[string]any{"bban": "95312776066", "currency": "NOK"},
		"payments":              []any{entry, entry},
	}
}

func set(path string, v any) func(body) {
	return func(b body) { setPath(b, path, v) }
}

func del(path string) func(body) {
	return func(b body) { setPath(b, path, deleted{}) }
}

type deleted struct{}

// setPath sets a dotted path in b, creating objects on the way.
func setPath(b map[string]any, path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		if _, ok := v.(deleted); ok {
			delete(b, head)
		} else {
			b[head] = v
		}
		return
	}
	m, ok := b[head].(map[string]any)
	if !ok {
		m = map[string]any{}
		b[head] = m
	}
	setPath(m, rest, v)
}

// bodyCase is one payment body and the answer it must get. Shared by the
// unit test of the checks and the socket test of the endpoint.
type bodyCase struct {
	name    string
	service string
	product string
	base    func() body
	edit    []func(body)
	raw     string // when set, sent instead of base+edit
	want    *problem
}

func (c bodyCase) body() []byte {
	if c.raw != "" {
		return []byte(c.raw)
	}
	b := c.base()
	for _, e := range c.edit {
		e(b)
	}
	return b.bytes()
}

func bad(path string) *problem {
	return &problem{Status: http.StatusBadRequest, Code: "FORMAT_ERROR", Path: path}
}

func badCode(code, path string) *problem {
	return &problem{Status: http.StatusBadRequest, Code: code, Path: path}
}

func ndct(name string, want *problem, edit ...func(body)) bodyCase {
	return bodyCase{name: name, service: servicePayments, product: productNDCT, base: validNDCT, edit: edit, want: want}
}

func sepa(name string, want *problem, edit ...func(body)) bodyCase {
	return bodyCase{name: name, service: servicePayments, product: productSEPA, base: validSEPA, edit: edit, want: want}
}

var (
	long71  = strings.Repeat("a", 71)
	long36  = strings.Repeat("r", 36)
	long141 = strings.Repeat("x", 141)
	ref     = func(r map[string]any) []any { return []any{r} }
)

// bodyCases are every rule of docs/interface.md sections 2.3 to 2.5 and 8 with a valid
// counterpart where the rule has a boundary.
var bodyCases = []bodyCase{
	// Valid bodies.
	ndct("ndct valid", nil),
	ndct("ndct card debtor", nil, set("debtorAccount", map[string]any{
		"currency": "NOK", "other": map[string]any{"identification": "card-1", "schemeNameProprietary": "creditCardAccount"}})),
	ndct("ndct 70 char name", nil, set("creditorName", strings.Repeat("å", 70))),
	ndct("ndct 140 char remittance", nil, set("remittanceInformationUnstructured", strings.Repeat("ø", 140))),
	ndct("ndct KID luhn", nil, del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567897", "referenceType": "KID"}))),
	ndct("ndct KID mod11 dash", nil, del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1009-", "referenceType": "KID"}))),
	ndct("ndct deprecated single KID", nil,
		set("remittanceInformationStructured", map[string]any{"reference": "00000019", "referenceType": "KID"})),
	ndct("ndct non-KID reference", nil, del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "Invoice 12", "referenceType": "SCOR", "referenceIssuer": "ISO"}))),
	ndct("ndct JPY no fraction", nil, set("instructedAmount", map[string]any{"amount": "5", "currency": "JPY"})),
	ndct("ndct KWD three digits", nil, set("instructedAmount", map[string]any{"amount": "1.250", "currency": "KWD"})),
	ndct("ndct currency account with agent", nil, set("creditorAccount.currency", "USD"), set("creditorAgent", "DNBANOKK")),
	ndct("ndct execution today", nil, set("requestedExecutionDate", "2026-11-23")),
	ndct("ndct execution future", nil, set("requestedExecutionDate", "2027-01-04")),
	ndct("ndct purpose code", nil, set("purposeCode", "SALA")),
	ndct("ndct full address", nil, set("creditorAddress", map[string]any{
		"street": strings.Repeat("s", 70), "buildingNumber": "1", "postalCode": "0150", "city": "Oslo", "country": "NO"})),
	ndct("ndct unknown field ignored", nil, set("somethingElse", 1)),
	sepa("sepa valid", nil),
	sepa("sepa without address", nil),
	{name: "cross-border iban", service: servicePayments, product: productCBCT, base: func() body {
		b := validSEPA()
		b["creditorAddress"] = map[string]any{"country": "DE"}
		b["debtorAccount"] = map[string]any{"bban": "86011117947", "currency": "NOK"}
		return b
	}},
	{name: "cross-border bban", service: servicePayments, product: productCBCT, base: func() body {
		b := validNDCT()
		b["creditorAccount"] = map[string]any{"bban": "123456789012345678", "currency": "USD"}
		b["creditorAddress"] = map[string]any{"country": "US"}
		return b
	}},
	{name: "instant valid", service: servicePayments, product: productInstant, base: validNDCT},
	{name: "periodic valid", service: servicePeriodic, product: productNDCT, base: validPeriodic},
	{name: "periodic monthly variable", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("frequency", "MonthlyVariable"), set("monthsOfExecution", []string{"1", "6", "12"}), set("dayOfExecution", "31")}},
	{name: "bulk valid", service: serviceBulk, product: productNDCT, base: validBulk},

	// Whole body.
	{name: "not json", service: servicePayments, product: productNDCT, raw: `amount=1`, want: bad("")},
	{name: "xml", service: servicePayments, product: productNDCT, raw: `<Document><CstmrCdtTrfInitn/></Document>`, want: bad("")},
	{name: "array", service: servicePayments, product: productNDCT, raw: `[1,2]`, want: bad("")},
	{name: "truncated", service: servicePayments, product: productNDCT, raw: `{"creditorName":"x"`, want: bad("")},
	{name: "trailing data", service: servicePayments, product: productNDCT, raw: `{} {}`, want: bad("")},
	{name: "invalid utf-8", service: servicePayments, product: productNDCT, raw: "{\"creditorName\":\"\xff\"}", want: bad("")},
	{name: "empty", service: servicePayments, product: productNDCT, raw: " ", want: bad("")},
	ndct("name is a number", bad("creditorName"), set("creditorName", 12)),
	ndct("amount object is a string", bad("instructedAmount"), set("instructedAmount", "1250.00 NOK")),

	// Characters outside the BMP.
	ndct("emoji in remittance", bad("remittanceInformationUnstructured"), set("remittanceInformationUnstructured", "Pizza 🍕")),
	{name: "escaped emoji in name", service: servicePayments, product: productNDCT,
		raw:  strings.Replace(string(validNDCT().bytes()), `"Ola Eksempel"`, `"Ola \ud83d\ude00"`, 1),
		want: bad("creditorName")},
	// Emoji inside the BMP (Extended_Pictographic), docs/interface.md
	// sections 1.6 and 7: refused in every free-text field.
	ndct("check mark U+2705 in remittance", bad("remittanceInformationUnstructured"), set("remittanceInformationUnstructured", "Betalt \u2705")),
	ndct("hot beverage U+2615 in creditorName", bad("creditorName"), set("creditorName", "Kaffebar \u2615")),
	ndct("heart U+2764 in street", bad("creditorAddress.street"), set("creditorAddress.street", "Kj\u00e6rlighetsstien \u2764")),
	ndct("heart with VS16 in city", bad("creditorAddress.city"), set("creditorAddress.city", "Oslo \u2764\ufe0f")),
	ndct("trade mark sign U+2122 in ultimateDebtor", bad("ultimateDebtor"), set("ultimateDebtor", "Firma\u2122 AS")),
	// ISO 8859-1 is text, © and ® included (they are pictographic only
	// with U+FE0F, which is refused with them as in the city above).
	ndct("registered sign in creditorName", nil, set("creditorName", "Acme\u00ae AS")),
	ndct("copyright sign in ultimateDebtor", nil, set("ultimateDebtor", "Firma\u00a9 AS")),
	ndct("all of Latin-1 in remittance", nil, set("remittanceInformationUnstructured", latin1Printable())),
	ndct("pictograph in structured reference", bad("remittanceInformationStructuredArray[0].referenceIssuer"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "INV 1", "referenceIssuer": "\u2615"}))),
	ndct("pictograph in card identification", bad("debtorAccount.other.identification"), del("debtorAccount.bban"),
		set("debtorAccount.other", map[string]any{"identification": "card\u2705", "schemeNameProprietary": "creditCardAccount"})),
	sepa("pictograph in endToEndIdentification", bad("endToEndIdentification"), set("endToEndIdentification", "E2E\u2705")),
	{name: "escaped U+2705 in name", service: servicePayments, product: productNDCT,
		raw:  strings.Replace(string(validNDCT().bytes()), `"Ola Eksempel"`, `"Ola \u2705"`, 1),
		want: bad("creditorName")},
	{name: "pictograph in a bulk entry", service: serviceBulk, product: productNDCT, base: validBulk,
		edit: []func(body){set("payments", []any{validNDCT(), body{"creditorName": "\u2764"}})}, want: bad("payments[1].creditorName")},
	ndct("Norwegian letters and signs pass", nil, set("creditorName", "\u00c6rlige \u00d8ystein \u00c5s \u00a7 \u20ac \u00ab\u00bb")),

	// instructedAmount.
	ndct("amount missing", bad("instructedAmount"), del("instructedAmount")),
	ndct("amount as number", bad("instructedAmount.amount"), set("instructedAmount.amount", json.Number("1250.00"))),
	ndct("amount null", bad("instructedAmount.amount"), set("instructedAmount.amount", nil)),
	ndct("amount one fraction digit", bad("instructedAmount.amount"), set("instructedAmount.amount", "12.5")),
	ndct("amount no fraction digits", bad("instructedAmount.amount"), set("instructedAmount.amount", "150")),
	ndct("amount three fraction digits", bad("instructedAmount.amount"), set("instructedAmount.amount", "1.000")),
	ndct("amount zero", bad("instructedAmount.amount"), set("instructedAmount.amount", "0.00")),
	ndct("amount negative", bad("instructedAmount.amount"), set("instructedAmount.amount", "-1.00")),
	ndct("amount exponent", bad("instructedAmount.amount"), set("instructedAmount.amount", "1e3")),
	ndct("amount comma", bad("instructedAmount.amount"), set("instructedAmount.amount", "1250,00")),
	ndct("amount too precise", bad("instructedAmount.amount"), set("instructedAmount.amount", strings.Repeat("9", 17)+".00")),
	ndct("amount of 13 integer digits", nil, set("instructedAmount.amount", "9999999999999.99")),
	ndct("amount of 14 integer digits (precision 18, scale 5)", bad("instructedAmount.amount"), set("instructedAmount.amount", "10000000000000.00")),
	ndct("amount of 16 integer digits", bad("instructedAmount.amount"), set("instructedAmount.amount", "1234567890123456.00")),
	ndct("JPY amount of 14 integer digits", bad("instructedAmount.amount"), set("instructedAmount", map[string]any{"amount": "12345678901234", "currency": "JPY"})),
	ndct("JPY with fraction", bad("instructedAmount.amount"), set("instructedAmount", map[string]any{"amount": "5.00", "currency": "JPY"})),
	ndct("currency missing", bad("instructedAmount.currency"), del("instructedAmount.currency")),
	ndct("currency unknown", bad("instructedAmount.currency"), set("instructedAmount.currency", "XYZ")),
	ndct("currency lower case", bad("instructedAmount.currency"), set("instructedAmount.currency", "nok")),
	// ISO 4217 changes since 2023: the emulator uses the SDK's list (package
	// money), so both sides agree.
	ndct("currency XCG (introduced 2025)", nil, set("instructedAmount.currency", "XCG")),
	ndct("currency ZWG (introduced 2024)", nil, set("instructedAmount.currency", "ZWG")),
	ndct("currency ANG (withdrawn 2025)", bad("instructedAmount.currency"), set("instructedAmount.currency", "ANG")),
	ndct("currency HRK (withdrawn 2023)", bad("instructedAmount.currency"), set("instructedAmount.currency", "HRK")),
	ndct("currency ZWL (withdrawn 2024)", bad("instructedAmount.currency"), set("instructedAmount.currency", "ZWL")),
	ndct("currency SLL (withdrawn 2023)", bad("instructedAmount.currency"), set("instructedAmount.currency", "SLL")),
	ndct("creditor currency ANG (withdrawn 2025)", bad("creditorAccount.currency"), set("creditorAccount.currency", "ANG"), set("creditorAgent", "DNBANOKK")),
	ndct("creditor currency XCG with agent", nil, set("creditorAccount.currency", "XCG"), set("creditorAgent", "DNBANOKK")),
	{name: "instant in EUR", service: servicePayments, product: productInstant, base: validNDCT,
		edit: []func(body){set("instructedAmount.currency", "EUR")}, want: bad("instructedAmount.currency")},

	// creditorName.
	ndct("creditorName missing", bad("creditorName"), del("creditorName")),
	ndct("creditorName empty", bad("creditorName"), set("creditorName", "")),
	ndct("creditorName 71", bad("creditorName"), set("creditorName", long71)),

	// creditorAccount.
	ndct("creditorAccount missing", bad("creditorAccount"), del("creditorAccount")),
	ndct("creditor bban missing", bad("creditorAccount.bban"), del("creditorAccount.bban")),
	ndct("creditor bban check digit", bad("creditorAccount.bban"), set("creditorAccount.bban", "91026527437")),
	ndct("creditor bban remainder 1", bad("creditorAccount.bban"), set("creditorAccount.bban", "00008000000")),
	ndct("creditor bban 10 digits", nil, set("creditorAccount.bban", "9102652743")),
	ndct("creditor bban 31", bad("creditorAccount.bban"), set("creditorAccount.bban", strings.Repeat("1", 31))),
	ndct("creditor bban 30", nil, set("creditorAccount.bban", strings.Repeat("1", 30))),
	ndct("creditor bban empty", bad("creditorAccount.bban"), set("creditorAccount.bban", "")),
	// docs/interface.md section 2.3a: any bban of up to 30 characters but
	// an 11-digit one with a wrong check digit, the printed form included.
	ndct("creditor bban dotted", nil, set("creditorAccount.bban", "9102.65.27436")),
	ndct("creditor bban spaced", nil, set("creditorAccount.bban", "9102 65 27436")),
	ndct("creditor bban spaced with a wrong check digit", nil, set("creditorAccount.bban", "9102 65 27437")),
	ndct("debtor bban spaced", nil, set("debtorAccount.bban", "9531 27 76066")),
	ndct("creditor bban hyphenated", nil, set("creditorAccount.bban", "9102-65-27436")),
	ndct("creditor bban of 11 characters not all digits", nil, set("creditorAccount.bban", "9102652743X")),
	ndct("creditor bban of 12 digits", nil, set("creditorAccount.bban", "910265274361")),
	ndct("creditor bban of 30 letters and digits", nil, set("creditorAccount.bban", strings.Repeat("AB1", 10))),
	ndct("debtor bban of 16 digits", nil, set("debtorAccount.bban", "1234567890123456")),
	ndct("creditor currency missing", bad("creditorAccount.currency"), del("creditorAccount.currency")),
	ndct("creditor currency unknown", bad("creditorAccount.currency"), set("creditorAccount.currency", "KRN")),
	ndct("currency account without agent", bad("creditorAgent"), set("creditorAccount.currency", "USD")),
	ndct("creditorAgent not a BIC", bad("creditorAgent"), set("creditorAgent", "DNB")),

	// creditorAddress.
	ndct("creditorAddress missing", bad("creditorAddress"), del("creditorAddress")),
	ndct("country missing", bad("creditorAddress.country"), del("creditorAddress.country")),
	ndct("country unknown", bad("creditorAddress.country"), set("creditorAddress.country", "XX")),
	ndct("country alpha-3", bad("creditorAddress.country"), set("creditorAddress.country", "NOR")),
	ndct("country lower case", bad("creditorAddress.country"), set("creditorAddress.country", "no")),
	ndct("street 71", bad("creditorAddress.street"), set("creditorAddress.street", long71)),

	// debtorAccount.
	ndct("debtorAccount missing", bad("debtorAccount"), del("debtorAccount")),
	ndct("debtor bban and other", bad("debtorAccount"),
		set("debtorAccount.other", map[string]any{"identification": "card-1", "schemeNameProprietary": "creditCardAccount"})),
	ndct("debtor neither bban nor other", bad("debtorAccount"), del("debtorAccount.bban")),
	ndct("debtor iban instead of bban", bad("debtorAccount"), del("debtorAccount.bban"), set("debtorAccount.iban", "NO9386011117947")),
	ndct("debtor bban check digit", bad("debtorAccount.bban"), set("debtorAccount.bban", "95312776067")),
	ndct("debtor card without identification", bad("debtorAccount.other.identification"), del("debtorAccount.bban"),
		set("debtorAccount.other", map[string]any{"schemeNameProprietary": "creditCardAccount"})),
	ndct("debtor card wrong scheme", bad("debtorAccount.other.schemeNameProprietary"), del("debtorAccount.bban"),
		set("debtorAccount.other", map[string]any{"identification": "card-1", "schemeNameProprietary": "BBAN"})),
	ndct("debtor currency missing", bad("debtorAccount.currency"), del("debtorAccount.currency")),

	// Other fields.
	ndct("ultimateDebtor 71", bad("ultimateDebtor"), set("ultimateDebtor", long71)),
	ndct("purposeCode unknown", bad("purposeCode"), set("purposeCode", "GIFT")),
	ndct("execution date past", badCode("EXECUTION_DATE_INVALID", "requestedExecutionDate"), set("requestedExecutionDate", "2026-11-22")),
	ndct("execution date format", bad("requestedExecutionDate"), set("requestedExecutionDate", "23.11.2026")),

	// Remittance.
	ndct("unstructured empty", bad("remittanceInformationUnstructured"), set("remittanceInformationUnstructured", "")),
	ndct("unstructured 141", bad("remittanceInformationUnstructured"), set("remittanceInformationUnstructured", long141)),
	ndct("structured and unstructured", bad("remittanceInformationStructuredArray"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567897", "referenceType": "KID"}))),
	ndct("structured array empty", bad("remittanceInformationStructuredArray"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", []any{})),
	ndct("reference missing", bad("remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"referenceType": "SCOR"}))),
	ndct("reference 36", bad("remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": long36}))),
	ndct("referenceType empty", bad("remittanceInformationStructuredArray[0].referenceType"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "x", "referenceType": ""}))),
	ndct("referenceIssuer 36", bad("remittanceInformationStructuredArray[0].referenceIssuer"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "x", "referenceIssuer": long36}))),
	ndct("KID check digit", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567890", "referenceType": "KID"}))),
	ndct("KID letters", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "12AB0", "referenceType": "KID"}))),
	ndct("KID one digit", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "0", "referenceType": "KID"}))),
	ndct("KID 26 digits", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": strings.Repeat("1", 25) + "8", "referenceType": "KID"}))),
	ndct("KID empty", badCode("KID_MISSING", "remittanceInformationStructuredArray[0].reference"), del("remittanceInformationUnstructured"),
		set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "", "referenceType": "KID"}))),
	ndct("KID in deprecated single", badCode("KID_INVALID", "remittanceInformationStructured.reference"),
		set("remittanceInformationStructured", map[string]any{"reference": "00000017", "referenceType": "KID"})),

	// SEPA.
	sepa("sepa iban missing", bad("creditorAccount.iban"), del("creditorAccount.iban")),
	sepa("sepa iban check", bad("creditorAccount.iban"), set("creditorAccount.iban", "DE89370400440532013001")),
	sepa("sepa iban 35", bad("creditorAccount.iban"), set("creditorAccount.iban", "DE89"+strings.Repeat("1", 31))),
	sepa("sepa debtor iban", bad("debtorAccount.iban"), set("debtorAccount.iban", "NO9386011117948")),
	sepa("sepa endToEnd 36", bad("endToEndIdentification"), set("endToEndIdentification", long36)),
	sepa("sepa country", bad("creditorAddress.country"), set("creditorAddress", map[string]any{"country": "DEU"})),

	// Periodic and bulk.
	{name: "periodic without startDate", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){del("startDate")}, want: bad("startDate")},
	{name: "periodic startDate past", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("startDate", "2026-01-01")}, want: badCode("EXECUTION_DATE_INVALID", "startDate")},
	{name: "periodic endDate before start", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("endDate", "2026-11-30")}, want: bad("endDate")},
	{name: "periodic frequency", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("frequency", "Hourly")}, want: bad("frequency")},
	{name: "periodic duplicate months", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("frequency", "MonthlyVariable"), set("monthsOfExecution", []string{"1", "6", "1"})}, want: bad("monthsOfExecution[2]")},
	{name: "periodic day 32", service: servicePeriodic, product: productNDCT, base: validPeriodic,
		edit: []func(body){set("dayOfExecution", "32")}, want: bad("dayOfExecution")},
	{name: "bulk without payments", service: serviceBulk, product: productNDCT, base: validBulk,
		edit: []func(body){set("payments", []any{})}, want: bad("payments")},
	{name: "bulk bad entry", service: serviceBulk, product: productNDCT, base: validBulk,
		edit: []func(body){set("payments", []any{validNDCT(), map[string]any{"creditorName": "x"}})}, want: bad("payments[1].instructedAmount")},
	{name: "bulk without debtor", service: serviceBulk, product: productNDCT, base: validBulk,
		edit: []func(body){del("debtorAccount")}, want: bad("debtorAccount")},
}

// asServed checks a payment body as a served request is: the characters
// of every JSON body first (checkBody, in verify), then the body's schema
// and rules.
func asServed(service, product string, body []byte) (*paymentBody, *apiError) {
	if utf8.Valid(body) && json.Valid(body) {
		if e := checkCharacters(body); e != nil {
			return nil, e
		}
	}
	return checkPaymentBody(service, product, body, checkToday)
}

func TestCheckPaymentBody(t *testing.T) {
	t.Parallel()
	for _, tc := range bodyCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, e := asServed(tc.service, tc.product, tc.body())
			assert.Equal(t, tc.want, problemOf(e))
			if tc.want == nil {
				assert.NotNil(t, b)
			}
			if e != nil {
				assert.NotEmpty(t, e.msg.Text)
				assert.LessOrEqual(t, len(e.msg.Text), 512)
			}
		})
	}
}

func FuzzCheckPaymentBody(f *testing.F) {
	for _, tc := range bodyCases {
		f.Add(tc.service, tc.product, tc.body())
	}
	f.Fuzz(func(t *testing.T, service, product string, data []byte) {
		b, e := checkPaymentBody(service, product, data, checkToday)
		if e == nil {
			require.NotNil(t, b)
			return
		}
		require.GreaterOrEqual(t, e.status, 400)
		require.Less(t, e.status, 500)
	})
}

func BenchmarkCheckPaymentBody(b *testing.B) {
	data := validNDCT().bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, e := checkPaymentBody(servicePayments, productNDCT, data, checkToday); e != nil {
			b.Fatal(e)
		}
	}
}

// A bban in printed form, or any other notation of up to 30 characters,
// is created (201) as written, as the SDK's validation lets it through;
// 11 digits with a wrong MOD-11 digit and 31 characters are refused.
func TestPrintedBBANIsCreatedAsWritten(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Printed BBAN TPP")
	for i, bban := range []string{"8601 11 17947", "8601.11.17947", "NO-ACCT 8601/11/17947"} {
		c.createPayment("/v1/payments/"+productNDCT, ndctBody(kariBruk, bban, fmt.Sprintf("%d.00", 20+i)))
	}
	// Refused by section 2.3a: a wrong MOD-11 digit, more than 30 characters.
	for _, bban := range []string{"86011117948", strings.Repeat("8", 31)} {
		r := c.do(http.MethodPost, "/v1/payments/"+productNDCT, ndctBody(kariBruk, bban, "30.00"), c.payHeaders()...)
		assert.Equal(t, http.StatusBadRequest, r.status, bban)
		assert.Contains(t, string(r.body), "creditorAccount.bban", bban)
	}
}

// latin1Printable is every printable character of ISO 8859-1 above ASCII
// (U+00A1 to U+00FF but the soft hyphen), 94 characters.
func latin1Printable() string {
	var b strings.Builder
	for r := rune(0xA1); r <= 0xFF; r++ {
		if r != 0xAD {
			b.WriteRune(r)
		}
	}
	return b.String()
}
