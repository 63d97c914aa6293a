package paymentrulestest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Today is the instant the cases are checked at: a frozen clock, so that
// no case depends on the calendar. Every date in the cases is Day(n), n
// days from its bank date (2026-11-23). A test that sends them runs its
// bank at this instant.
var Today = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// Day returns the date n days after Today's bank date, as YYYY-MM-DD.
func Day(n int) string {
	return rules.Today(Today).AddDate(0, 0, n).Format(time.DateOnly)
}

// Body is a JSON object that a test edits.
type Body map[string]any

// Bytes encodes b; a map of JSON values always encodes.
func (b Body) Bytes() []byte {
	out, _ := json.Marshal(b)
	return out
}

// ValidNDCT returns a valid domestic payment between two valid BBANs.
func ValidNDCT() Body {
	return Body{
		"instructedAmount":                  map[string]any{"amount": "1250.00", "currency": "NOK"},
		"creditorName":                      "Ola Eksempel",
		"creditorAccount":                   map[string]any{"bban": "91026527436", "currency": "NOK"},
		"creditorAddress":                   map[string]any{"country": "NO"},
		"debtorAccount":                     map[string]any{"bban": "95312776066", "currency": "NOK"},
		"remittanceInformationUnstructured": "Hyttetur påske",
	}
}

// ValidSEPA returns a valid SEPA payment from a Norwegian IBAN.
func ValidSEPA() Body {
	return Body{
		"endToEndIdentification": "E2E-1",
		"instructedAmount":       map[string]any{"amount": "100.00", "currency": "EUR"},
		"creditorName":           "Max Mustermann",
		"creditorAccount":        map[string]any{"iban": "DE89370400440532013000", "currency": "EUR"},
		"debtorAccount":          map[string]any{"iban": "NO9386011117947", "currency": "EUR"},
	}
}

// ValidPeriodic returns a valid monthly periodic domestic payment.
func ValidPeriodic() Body {
	b := ValidNDCT()
	b["startDate"] = Day(8)
	b["frequency"] = "Monthly"
	return b
}

// ValidBulk returns a valid bulk payment of two domestic entries.
func ValidBulk() Body {
	entry := ValidNDCT()
	delete(entry, "debtorAccount")
	return Body{
		"batchBookingPreferred": true,
		"debtorAccount":         map[string]any{"bban": "95312776066", "currency": "NOK"},
		"payments":              []any{entry, entry},
	}
}

// Set returns an edit that sets the dotted path of a body to v.
func Set(path string, v any) func(Body) {
	return func(b Body) { SetPath(b, path, v) }
}

// Del returns an edit that deletes the dotted path of a body.
func Del(path string) func(Body) {
	return func(b Body) { SetPath(b, path, deleted{}) }
}

// deleted is the value SetPath deletes a field for.
type deleted struct{}

// SetPath sets a dotted path in b, creating objects on the way.
func SetPath(b map[string]any, path string, v any) {
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
	SetPath(m, rest, v)
}

// Case is one payment body and the violation it must give, nil for a
// valid body.
type Case struct {
	// Name names the case in subtests.
	Name string
	// Service and Product are those of the path the body is sent to.
	Service, Product string
	// Base returns the valid body the case starts from, and Edit are the
	// changes made to it.
	Base func() Body
	Edit []func(Body)
	// Raw, when set, is sent instead of Base and Edit.
	Raw string
	// Want is the violation the body gives, nil when it is valid.
	Want *Want
}

// Want is the violation a case must give: its code and path. Every
// violation is answered 400.
type Want struct {
	Code, Path string
}

// Body returns the bytes of the case's body.
func (c Case) Body() []byte {
	if c.Raw != "" {
		return []byte(c.Raw)
	}
	b := c.Base()
	for _, e := range c.Edit {
		e(b)
	}
	return b.Bytes()
}

// bad is a FORMAT_ERROR at path.
func bad(path string) *Want {
	return &Want{Code: rules.CodeFormat, Path: path}
}

// badCode is a violation of code at path.
func badCode(code, path string) *Want {
	return &Want{Code: code, Path: path}
}

// ndct is a case of a single domestic payment.
func ndct(name string, want *Want, edit ...func(Body)) Case {
	return Case{Name: name, Service: rules.ServicePayments, Product: rules.ProductNDCT, Base: ValidNDCT, Edit: edit, Want: want}
}

// sepa is a case of a single SEPA payment.
func sepa(name string, want *Want, edit ...func(Body)) Case {
	return Case{Name: name, Service: rules.ServicePayments, Product: rules.ProductSEPA, Base: ValidSEPA, Edit: edit, Want: want}
}

var (
	long71  = strings.Repeat("a", 71)
	long36  = strings.Repeat("r", 36)
	long141 = strings.Repeat("x", 141)
	ref     = func(r map[string]any) []any { return []any{r} }
)

// Cases are every rule of docs/interface.md sections 2.3 to 2.5 and 8,
// with a valid counterpart where the rule has a boundary, checked on the
// bank date of [Today].
var Cases = []Case{
	// Valid bodies.
	ndct("ndct valid", nil),
	ndct("ndct card debtor", nil, Set("debtorAccount", map[string]any{
		"currency": "NOK", "other": map[string]any{"identification": "card-1", "schemeNameProprietary": "creditCardAccount"}})),
	ndct("ndct 70 char name", nil, Set("creditorName", strings.Repeat("å", 70))),
	ndct("ndct 140 char remittance", nil, Set("remittanceInformationUnstructured", strings.Repeat("ø", 140))),
	ndct("ndct KID luhn", nil, Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567897", "referenceType": "KID"}))),
	ndct("ndct KID mod11 dash", nil, Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1009-", "referenceType": "KID"}))),
	ndct("ndct deprecated single KID", nil,
		Set("remittanceInformationStructured", map[string]any{"reference": "00000019", "referenceType": "KID"})),
	ndct("ndct non-KID reference", nil, Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "Invoice 12", "referenceType": "SCOR", "referenceIssuer": "ISO"}))),
	ndct("ndct JPY no fraction", nil, Set("instructedAmount", map[string]any{"amount": "5", "currency": "JPY"})),
	ndct("ndct KWD three digits", nil, Set("instructedAmount", map[string]any{"amount": "1.250", "currency": "KWD"})),
	ndct("ndct currency account with agent", nil, Set("creditorAccount.currency", "USD"), Set("creditorAgent", "DNBANOKK")),
	ndct("ndct execution today", nil, Set("requestedExecutionDate", Day(0))),
	ndct("ndct execution future", nil, Set("requestedExecutionDate", Day(42))),
	ndct("ndct purpose code", nil, Set("purposeCode", "SALA")),
	ndct("ndct full address", nil, Set("creditorAddress", map[string]any{
		"street": strings.Repeat("s", 70), "buildingNumber": "1", "postalCode": "0150", "city": "Oslo", "country": "NO"})),
	ndct("ndct unknown field ignored", nil, Set("somethingElse", 1)),
	sepa("sepa valid", nil),
	sepa("sepa without address", nil),
	{Name: "cross-border iban", Service: rules.ServicePayments, Product: rules.ProductCBCT, Base: func() Body {
		b := ValidSEPA()
		b["creditorAddress"] = map[string]any{"country": "DE"}
		b["debtorAccount"] = map[string]any{"bban": "86011117947", "currency": "NOK"}
		return b
	}},
	{Name: "cross-border bban", Service: rules.ServicePayments, Product: rules.ProductCBCT, Base: func() Body {
		b := ValidNDCT()
		b["creditorAccount"] = map[string]any{"bban": "123456789012345678", "currency": "USD"}
		b["creditorAddress"] = map[string]any{"country": "US"}
		return b
	}},
	{Name: "instant valid", Service: rules.ServicePayments, Product: rules.ProductInstant, Base: ValidNDCT},
	{Name: "periodic valid", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic},
	{Name: "periodic monthly variable", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("frequency", "MonthlyVariable"), Set("monthsOfExecution", []string{"1", "6", "12"}), Set("dayOfExecution", "31")}},
	// Months are read only under MonthlyVariable, and a day or a month
	// with leading zeroes is the same day or month (payments.scheduleNumber
	// in the SDK holds the same choice).
	{Name: "periodic monthly months repeated", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("monthsOfExecution", []string{"1", "1"})}},
	{Name: "periodic day and month with leading zeroes", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("frequency", "MonthlyVariable"), Set("monthsOfExecution", []string{"001", "12"}), Set("dayOfExecution", "001")}},
	{Name: "bulk valid", Service: rules.ServiceBulk, Product: rules.ProductNDCT, Base: ValidBulk},

	// Whole body.
	{Name: "not json", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: `amount=1`, Want: bad("")},
	{Name: "xml", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: `<Document><CstmrCdtTrfInitn/></Document>`, Want: bad("")},
	{Name: "array", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: `[1,2]`, Want: bad("")},
	{Name: "truncated", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: `{"creditorName":"x"`, Want: bad("")},
	{Name: "trailing data", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: `{} {}`, Want: bad("")},
	{Name: "invalid utf-8", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: "{\"creditorName\":\"\xff\"}", Want: bad("")},
	{Name: "empty", Service: rules.ServicePayments, Product: rules.ProductNDCT, Raw: " ", Want: bad("")},
	ndct("name is a number", bad("creditorName"), Set("creditorName", 12)),
	ndct("amount object is a string", bad("instructedAmount"), Set("instructedAmount", "1250.00 NOK")),

	// Characters outside the BMP.
	ndct("emoji in remittance", bad("remittanceInformationUnstructured"), Set("remittanceInformationUnstructured", "Pizza 🍕")),
	{Name: "escaped emoji in name", Service: rules.ServicePayments, Product: rules.ProductNDCT,
		Raw:  strings.Replace(string(ValidNDCT().Bytes()), `"Ola Eksempel"`, `"Ola \ud83d\ude00"`, 1),
		Want: bad("creditorName")},
	// Emoji inside the BMP (Extended_Pictographic), docs/interface.md
	// sections 1.6 and 7: refused in every free-text field.
	ndct("check mark U+2705 in remittance", bad("remittanceInformationUnstructured"), Set("remittanceInformationUnstructured", "Betalt \u2705")),
	ndct("hot beverage U+2615 in creditorName", bad("creditorName"), Set("creditorName", "Kaffebar \u2615")),
	ndct("heart U+2764 in street", bad("creditorAddress.street"), Set("creditorAddress.street", "Kj\u00e6rlighetsstien \u2764")),
	ndct("heart with VS16 in city", bad("creditorAddress.city"), Set("creditorAddress.city", "Oslo \u2764\ufe0f")),
	ndct("trade mark sign U+2122 in ultimateDebtor", bad("ultimateDebtor"), Set("ultimateDebtor", "Firma\u2122 AS")),
	// ISO 8859-1 is text, © and ® included (they are pictographic only
	// with U+FE0F, which is refused with them as in the city above).
	ndct("registered sign in creditorName", nil, Set("creditorName", "Acme\u00ae AS")),
	ndct("copyright sign in ultimateDebtor", nil, Set("ultimateDebtor", "Firma\u00a9 AS")),
	ndct("all of Latin-1 in remittance", nil, Set("remittanceInformationUnstructured", Latin1Printable())),
	ndct("pictograph in structured reference", bad("remittanceInformationStructuredArray[0].referenceIssuer"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "INV 1", "referenceIssuer": "\u2615"}))),
	ndct("pictograph in card identification", bad("debtorAccount.other.identification"), Del("debtorAccount.bban"),
		Set("debtorAccount.other", map[string]any{"identification": "card\u2705", "schemeNameProprietary": "creditCardAccount"})),
	sepa("pictograph in endToEndIdentification", bad("endToEndIdentification"), Set("endToEndIdentification", "E2E\u2705")),
	{Name: "escaped U+2705 in name", Service: rules.ServicePayments, Product: rules.ProductNDCT,
		Raw:  strings.Replace(string(ValidNDCT().Bytes()), `"Ola Eksempel"`, `"Ola \u2705"`, 1),
		Want: bad("creditorName")},
	{Name: "pictograph in a bulk entry", Service: rules.ServiceBulk, Product: rules.ProductNDCT, Base: ValidBulk,
		Edit: []func(Body){Set("payments", []any{ValidNDCT(), Body{"creditorName": "\u2764"}})}, Want: bad("payments[1].creditorName")},
	ndct("Norwegian letters and signs pass", nil, Set("creditorName", "\u00c6rlige \u00d8ystein \u00c5s \u00a7 \u20ac \u00ab\u00bb")),

	// instructedAmount.
	ndct("amount missing", bad("instructedAmount"), Del("instructedAmount")),
	ndct("amount as number", bad("instructedAmount.amount"), Set("instructedAmount.amount", json.Number("1250.00"))),
	ndct("amount null", bad("instructedAmount.amount"), Set("instructedAmount.amount", nil)),
	ndct("amount one fraction digit", bad("instructedAmount.amount"), Set("instructedAmount.amount", "12.5")),
	ndct("amount no fraction digits", bad("instructedAmount.amount"), Set("instructedAmount.amount", "150")),
	ndct("amount three fraction digits", bad("instructedAmount.amount"), Set("instructedAmount.amount", "1.000")),
	ndct("amount zero", bad("instructedAmount.amount"), Set("instructedAmount.amount", "0.00")),
	ndct("amount negative", bad("instructedAmount.amount"), Set("instructedAmount.amount", "-1.00")),
	ndct("amount exponent", bad("instructedAmount.amount"), Set("instructedAmount.amount", "1e3")),
	ndct("amount comma", bad("instructedAmount.amount"), Set("instructedAmount.amount", "1250,00")),
	ndct("amount too precise", bad("instructedAmount.amount"), Set("instructedAmount.amount", strings.Repeat("9", 17)+".00")),
	ndct("amount of 13 integer digits", nil, Set("instructedAmount.amount", "9999999999999.99")),
	ndct("amount of 14 integer digits (precision 18, scale 5)", bad("instructedAmount.amount"), Set("instructedAmount.amount", "10000000000000.00")),
	ndct("amount of 16 integer digits", bad("instructedAmount.amount"), Set("instructedAmount.amount", "1234567890123456.00")),
	ndct("JPY amount of 14 integer digits", bad("instructedAmount.amount"), Set("instructedAmount", map[string]any{"amount": "12345678901234", "currency": "JPY"})),
	ndct("JPY with fraction", bad("instructedAmount.amount"), Set("instructedAmount", map[string]any{"amount": "5.00", "currency": "JPY"})),
	ndct("currency missing", bad("instructedAmount.currency"), Del("instructedAmount.currency")),
	ndct("currency unknown", bad("instructedAmount.currency"), Set("instructedAmount.currency", "XYZ")),
	ndct("currency lower case", bad("instructedAmount.currency"), Set("instructedAmount.currency", "nok")),
	// ISO 4217 changes since 2023: the emulator uses the SDK's list (package
	// money), so both sides agree.
	ndct("currency XCG (introduced 2025)", nil, Set("instructedAmount.currency", "XCG")),
	ndct("currency ZWG (introduced 2024)", nil, Set("instructedAmount.currency", "ZWG")),
	ndct("currency ANG (withdrawn 2025)", bad("instructedAmount.currency"), Set("instructedAmount.currency", "ANG")),
	ndct("currency HRK (withdrawn 2023)", bad("instructedAmount.currency"), Set("instructedAmount.currency", "HRK")),
	ndct("currency ZWL (withdrawn 2024)", bad("instructedAmount.currency"), Set("instructedAmount.currency", "ZWL")),
	ndct("currency SLL (withdrawn 2023)", bad("instructedAmount.currency"), Set("instructedAmount.currency", "SLL")),
	ndct("creditor currency ANG (withdrawn 2025)", bad("creditorAccount.currency"), Set("creditorAccount.currency", "ANG"), Set("creditorAgent", "DNBANOKK")),
	ndct("creditor currency XCG with agent", nil, Set("creditorAccount.currency", "XCG"), Set("creditorAgent", "DNBANOKK")),
	{Name: "instant in EUR", Service: rules.ServicePayments, Product: rules.ProductInstant, Base: ValidNDCT,
		Edit: []func(Body){Set("instructedAmount.currency", "EUR")}, Want: bad("instructedAmount.currency")},

	// creditorName.
	ndct("creditorName missing", bad("creditorName"), Del("creditorName")),
	ndct("creditorName empty", bad("creditorName"), Set("creditorName", "")),
	ndct("creditorName 71", bad("creditorName"), Set("creditorName", long71)),

	// creditorAccount.
	ndct("creditorAccount missing", bad("creditorAccount"), Del("creditorAccount")),
	ndct("creditor bban missing", bad("creditorAccount.bban"), Del("creditorAccount.bban")),
	ndct("creditor bban check digit", bad("creditorAccount.bban"), Set("creditorAccount.bban", "91026527437")),
	ndct("creditor bban remainder 1", bad("creditorAccount.bban"), Set("creditorAccount.bban", "00008000000")),
	ndct("creditor bban 10 digits", nil, Set("creditorAccount.bban", "9102652743")),
	ndct("creditor bban 31", bad("creditorAccount.bban"), Set("creditorAccount.bban", strings.Repeat("1", 31))),
	ndct("creditor bban 30", nil, Set("creditorAccount.bban", strings.Repeat("1", 30))),
	ndct("creditor bban empty", bad("creditorAccount.bban"), Set("creditorAccount.bban", "")),
	// docs/interface.md section 2.3a: any bban of up to 30 characters but
	// an 11-digit one with a wrong check digit, the printed form included.
	ndct("creditor bban dotted", nil, Set("creditorAccount.bban", "9102.65.27436")),
	ndct("creditor bban spaced", nil, Set("creditorAccount.bban", "9102 65 27436")),
	ndct("creditor bban spaced with a wrong check digit", nil, Set("creditorAccount.bban", "9102 65 27437")),
	ndct("debtor bban spaced", nil, Set("debtorAccount.bban", "9531 27 76066")),
	ndct("creditor bban hyphenated", nil, Set("creditorAccount.bban", "9102-65-27436")),
	ndct("creditor bban of 11 characters not all digits", nil, Set("creditorAccount.bban", "9102652743X")),
	ndct("creditor bban of 12 digits", nil, Set("creditorAccount.bban", "910265274361")),
	ndct("creditor bban of 30 letters and digits", nil, Set("creditorAccount.bban", strings.Repeat("AB1", 10))),
	ndct("debtor bban of 16 digits", nil, Set("debtorAccount.bban", "1234567890123456")),
	ndct("creditor currency missing", bad("creditorAccount.currency"), Del("creditorAccount.currency")),
	ndct("creditor currency unknown", bad("creditorAccount.currency"), Set("creditorAccount.currency", "KRN")),
	ndct("currency account without agent", bad("creditorAgent"), Set("creditorAccount.currency", "USD")),
	ndct("creditorAgent not a BIC", bad("creditorAgent"), Set("creditorAgent", "DNB")),

	// creditorAddress.
	ndct("creditorAddress missing", bad("creditorAddress"), Del("creditorAddress")),
	ndct("country missing", bad("creditorAddress.country"), Del("creditorAddress.country")),
	ndct("country unknown", bad("creditorAddress.country"), Set("creditorAddress.country", "XX")),
	ndct("country alpha-3", bad("creditorAddress.country"), Set("creditorAddress.country", "NOR")),
	ndct("country lower case", bad("creditorAddress.country"), Set("creditorAddress.country", "no")),
	ndct("street 71", bad("creditorAddress.street"), Set("creditorAddress.street", long71)),

	// debtorAccount.
	ndct("debtorAccount missing", bad("debtorAccount"), Del("debtorAccount")),
	ndct("debtor bban and other", bad("debtorAccount"),
		Set("debtorAccount.other", map[string]any{"identification": "card-1", "schemeNameProprietary": "creditCardAccount"})),
	ndct("debtor neither bban nor other", bad("debtorAccount"), Del("debtorAccount.bban")),
	ndct("debtor iban instead of bban", bad("debtorAccount"), Del("debtorAccount.bban"), Set("debtorAccount.iban", "NO9386011117947")),
	ndct("debtor bban check digit", bad("debtorAccount.bban"), Set("debtorAccount.bban", "95312776067")),
	ndct("debtor card without identification", bad("debtorAccount.other.identification"), Del("debtorAccount.bban"),
		Set("debtorAccount.other", map[string]any{"schemeNameProprietary": "creditCardAccount"})),
	ndct("debtor card wrong scheme", bad("debtorAccount.other.schemeNameProprietary"), Del("debtorAccount.bban"),
		Set("debtorAccount.other", map[string]any{"identification": "card-1", "schemeNameProprietary": "BBAN"})),
	ndct("debtor currency missing", bad("debtorAccount.currency"), Del("debtorAccount.currency")),

	// Other fields.
	ndct("ultimateDebtor 71", bad("ultimateDebtor"), Set("ultimateDebtor", long71)),
	ndct("purposeCode unknown", bad("purposeCode"), Set("purposeCode", "GIFT")),
	ndct("execution date past", badCode("EXECUTION_DATE_INVALID", "requestedExecutionDate"), Set("requestedExecutionDate", Day(-1))),
	ndct("execution date format", bad("requestedExecutionDate"), Set("requestedExecutionDate", "23.11.2026")),

	// Remittance.
	ndct("unstructured empty", bad("remittanceInformationUnstructured"), Set("remittanceInformationUnstructured", "")),
	ndct("unstructured 141", bad("remittanceInformationUnstructured"), Set("remittanceInformationUnstructured", long141)),
	ndct("structured and unstructured", bad("remittanceInformationStructuredArray"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567897", "referenceType": "KID"}))),
	ndct("structured array empty", bad("remittanceInformationStructuredArray"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", []any{})),
	ndct("reference missing", bad("remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"referenceType": "SCOR"}))),
	ndct("reference 36", bad("remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": long36}))),
	ndct("referenceType empty", bad("remittanceInformationStructuredArray[0].referenceType"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "x", "referenceType": ""}))),
	ndct("referenceIssuer 36", bad("remittanceInformationStructuredArray[0].referenceIssuer"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "x", "referenceIssuer": long36}))),
	ndct("KID check digit", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "1234567890", "referenceType": "KID"}))),
	ndct("KID letters", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "12AB0", "referenceType": "KID"}))),
	ndct("KID one digit", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "0", "referenceType": "KID"}))),
	ndct("KID 26 digits", badCode("KID_INVALID", "remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": strings.Repeat("1", 25) + "8", "referenceType": "KID"}))),
	ndct("KID empty", badCode("KID_MISSING", "remittanceInformationStructuredArray[0].reference"), Del("remittanceInformationUnstructured"),
		Set("remittanceInformationStructuredArray", ref(map[string]any{"reference": "", "referenceType": "KID"}))),
	ndct("KID in deprecated single", badCode("KID_INVALID", "remittanceInformationStructured.reference"),
		Set("remittanceInformationStructured", map[string]any{"reference": "00000017", "referenceType": "KID"})),

	// SEPA.
	sepa("sepa iban missing", bad("creditorAccount.iban"), Del("creditorAccount.iban")),
	sepa("sepa iban check", bad("creditorAccount.iban"), Set("creditorAccount.iban", "DE89370400440532013001")),
	sepa("sepa iban 35", bad("creditorAccount.iban"), Set("creditorAccount.iban", "DE89"+strings.Repeat("1", 31))),
	sepa("sepa debtor iban", bad("debtorAccount.iban"), Set("debtorAccount.iban", "NO9386011117948")),
	sepa("sepa endToEnd 36", bad("endToEndIdentification"), Set("endToEndIdentification", long36)),
	sepa("sepa country", bad("creditorAddress.country"), Set("creditorAddress", map[string]any{"country": "DEU"})),

	// Periodic and bulk.
	{Name: "periodic without startDate", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Del("startDate")}, Want: bad("startDate")},
	{Name: "periodic startDate past", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("startDate", Day(-326))}, Want: badCode("EXECUTION_DATE_INVALID", "startDate")},
	{Name: "periodic endDate before start", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("endDate", Day(7))}, Want: bad("endDate")},
	{Name: "periodic frequency", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("frequency", "Hourly")}, Want: bad("frequency")},
	{Name: "periodic duplicate months", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("frequency", "MonthlyVariable"), Set("monthsOfExecution", []string{"1", "6", "1"})}, Want: bad("monthsOfExecution[2]")},
	{Name: "periodic day 32", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("dayOfExecution", "32")}, Want: bad("dayOfExecution")},
	{Name: "periodic month 001 and 1", Service: rules.ServicePeriodic, Product: rules.ProductNDCT, Base: ValidPeriodic,
		Edit: []func(Body){Set("frequency", "MonthlyVariable"), Set("monthsOfExecution", []string{"001", "1"})}, Want: bad("monthsOfExecution[1]")},
	{Name: "bulk without payments", Service: rules.ServiceBulk, Product: rules.ProductNDCT, Base: ValidBulk,
		Edit: []func(Body){Set("payments", []any{})}, Want: bad("payments")},
	{Name: "bulk bad entry", Service: rules.ServiceBulk, Product: rules.ProductNDCT, Base: ValidBulk,
		Edit: []func(Body){Set("payments", []any{ValidNDCT(), map[string]any{"creditorName": "x"}})}, Want: bad("payments[1].instructedAmount")},
	{Name: "bulk without debtor", Service: rules.ServiceBulk, Product: rules.ProductNDCT, Base: ValidBulk,
		Edit: []func(Body){Del("debtorAccount")}, Want: bad("debtorAccount")},
}

// Latin1Printable is every printable character of ISO 8859-1 above ASCII
// (U+00A1 to U+00FF but the soft hyphen), 94 characters.
func Latin1Printable() string {
	var b strings.Builder
	for r := rune(0xA1); r <= 0xFF; r++ {
		if r != 0xAD {
			b.WriteRune(r)
		}
	}
	return b.String()
}
