package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/emoji"
	"github.com/tppkit/psd2/money"
)

// This file checks payment bodies the way the bank does (docs/interface.md sections 2.3 to
// 2.5 and 8). Every check returns the first problem found as an *apiError
// naming the field in its path. The order of the checks is fixed, so one
// body always gives the same answer.
//
// Rules that the interface leaves open and this emulator decides (each kept in
// one place here):
//   - an amount must have exactly the currency's minor units as fraction
//     digits ("150.00" NOK; "150" NOK is refused), as docs/interface.md section 2.1 says
//     "must equal";
//   - a bban of a domestic payment (NDCT, instant) is a Norwegian account
//     number: 11 digits without separators, with its MOD-11 check digit;
//     the printed form with spaces or dots is refused, not rewritten (see
//     requiredBBAN for why the 30 characters of the interface are not
//     enough reason to accept other bbans there);
//   - an IBAN is written in the electronic form: upper case, no spaces;
//   - instant payments (straks) are in NOK only;
//   - empty strings count as present (and then break "non-empty" rules);
//     JSON null counts as absent;
//   - unknown fields are ignored, as the platform does.

// Payment products of the platform's path table.
const (
	productNDCT    = "norwegian-domestic-credit-transfers"
	productSEPA    = "sepa-credit-transfers"
	productCBCT    = "cross-border-credit-transfers"
	productInstant = "instant-norwegian-domestic-credit-transfers-straks"
)

// Payment services (the first path segment after /v1).
const (
	servicePayments = "payments"
	servicePeriodic = "periodic-payments"
	serviceBulk     = "bulk-payments"
)

// Limits of docs/interface.md sections 2.3 to 2.5 and 8.
const (
	maxNameLen          = 70  // creditorName, ultimateDebtor, street
	maxBBANLen          = 30  // bban
	maxIBANLen          = 34  // iban
	maxUnstructuredLen  = 140 // remittanceInformationUnstructured
	maxReferenceLen     = 35  // reference, referenceType, referenceIssuer
	maxEndToEndLen      = 35  // endToEndIdentification
	maxBulkPayments     = 100 // emulator limit: entries in one bulk payment
	cardAccountScheme   = "creditCardAccount"
	remittanceKIDType   = "KID"
	maxBodyFieldTextLen = 40 // how much of a bad value an error text quotes
)

// purposeCodes is the list of docs/interface.md section 2.4.
var purposeCodes = map[string]bool{
	"INVS": true, "SALA": true, "IDCP": true, "CASH": true, "CORT": true,
	"INTC": true, "PENS": true, "SSBE": true, "SUPP": true, "TAXS": true,
	"TREA": true, "VATX": true, "LOAN": true, "OTHR": true,
}

// periodicFrequencies are the Berlin Group frequency codes.
var periodicFrequencies = map[string]bool{
	"Daily": true, "Weekly": true, "EveryTwoWeeks": true, "Monthly": true,
	"EveryTwoMonths": true, "Quarterly": true, "SemiAnnual": true,
	"Annual": true, "MonthlyVariable": true,
}

// paymentBody is the union of the fields of the payment request bodies
// (docs/interface.md sections 2.4, 2.5; Berlin Group periodic and bulk payments). Pointers
// tell absent from empty; the details endpoint echoes the body from it.
type paymentBody struct {
	EndToEndIdentification               *string             `json:"endToEndIdentification,omitempty"`
	InstructedAmount                     *paymentAmount      `json:"instructedAmount,omitempty"`
	CreditorName                         *string             `json:"creditorName,omitempty"`
	CreditorAgent                        *string             `json:"creditorAgent,omitempty"`
	CreditorAccount                      *paymentAccount     `json:"creditorAccount,omitempty"`
	CreditorAddress                      *paymentAddress     `json:"creditorAddress,omitempty"`
	DebtorAccount                        *paymentAccount     `json:"debtorAccount,omitempty"`
	UltimateDebtor                       *string             `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured    *string             `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructured      *paymentReference   `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray *[]paymentReference `json:"remittanceInformationStructuredArray,omitempty"`
	PurposeCode                          *string             `json:"purposeCode,omitempty"`
	RequestedExecutionDate               *string             `json:"requestedExecutionDate,omitempty"`

	// Periodic payments.
	StartDate         *string   `json:"startDate,omitempty"`
	EndDate           *string   `json:"endDate,omitempty"`
	ExecutionRule     *string   `json:"executionRule,omitempty"`
	Frequency         *string   `json:"frequency,omitempty"`
	DayOfExecution    *string   `json:"dayOfExecution,omitempty"`
	MonthsOfExecution *[]string `json:"monthsOfExecution,omitempty"`

	// Bulk payments.
	BatchBookingPreferred *bool          `json:"batchBookingPreferred,omitempty"`
	Payments              *[]paymentBody `json:"payments,omitempty"`
}

// paymentAmount is a money object as sent. The amount stays raw so the
// check can tell a JSON string from a number.
type paymentAmount struct {
	Amount   json.RawMessage `json:"amount,omitempty"`
	Currency *string         `json:"currency,omitempty"`
}

// paymentAccount is an account reference (docs/interface.md section 2.3a).
type paymentAccount struct {
	IBAN     *string      `json:"iban,omitempty"`
	BBAN     *string      `json:"bban,omitempty"`
	Other    *paymentCard `json:"other,omitempty"`
	Currency *string      `json:"currency,omitempty"`
}

// paymentCard is the card account reference of an NDCT debtorAccount.
type paymentCard struct {
	Identification        *string `json:"identification,omitempty"`
	SchemeNameProprietary *string `json:"schemeNameProprietary,omitempty"`
}

// paymentAddress is a creditorAddress (docs/interface.md section 2.3).
type paymentAddress struct {
	Street         *string `json:"street,omitempty"`
	BuildingNumber *string `json:"buildingNumber,omitempty"`
	PostalCode     *string `json:"postalCode,omitempty"`
	City           *string `json:"city,omitempty"`
	Country        *string `json:"country,omitempty"`
}

// paymentReference is a structured remittance reference (docs/interface.md section 2.4).
type paymentReference struct {
	Reference       *string `json:"reference,omitempty"`
	ReferenceType   *string `json:"referenceType,omitempty"`
	ReferenceIssuer *string `json:"referenceIssuer,omitempty"`
}

// paymentCheck validates the body of one payment request. today is the
// bank's current date (YYYY-MM-DD, [bankDate]) for the execution-date
// rules.
type paymentCheck struct {
	service string
	product string
	today   string
}

// knownProduct reports whether product is one the emulator offers.
func knownProduct(product string) bool {
	switch product {
	case productNDCT, productSEPA, productCBCT, productInstant:
		return true
	}
	return false
}

// checkPaymentBody decodes and validates a payment request body for
// service and product on the bank's date at now ([bankDate]: Europe/Oslo). It returns the decoded body or
// the first problem.
func checkPaymentBody(service, product string, body []byte, now time.Time) (*paymentBody, *apiError) {
	c := paymentCheck{service: service, product: product, today: bankDate(now)}
	return c.check(body)
}

func (c paymentCheck) check(body []byte) (*paymentBody, *apiError) {
	if !utf8.Valid(body) {
		return nil, errFormat("", "The body is not valid UTF-8.")
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errFormat("", "The body is empty; a JSON payment object is required.")
	}
	if trimmed[0] != '{' {
		return nil, errFormat("", "The body must be a JSON object.")
	}
	var b paymentBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errFormat("", "The body holds data after the JSON object.")
	}
	if e := checkCharacters(body); e != nil {
		return nil, e
	}
	if c.service == serviceBulk {
		return &b, c.bulk(&b)
	}
	if e := c.single(&b, "", true); e != nil {
		return nil, e
	}
	if c.service == servicePeriodic {
		if e := c.periodic(&b); e != nil {
			return nil, e
		}
	}
	return &b, nil
}

// jsonProblem turns a decoding error into a 400 FORMAT_ERROR naming the
// field when the decoder knows it.
func jsonProblem(err error) *apiError {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return errFormat("", "The body must be a JSON object.")
		}
		return errFormat(typeErr.Field, "%s must be a JSON %s.", typeErr.Field, jsonKind(typeErr.Type.Kind().String()))
	}
	return errFormat("", "The body is not valid JSON.")
}

func jsonKind(kind string) string {
	switch kind {
	case "ptr", "string":
		return "string"
	case "slice":
		return "array"
	case "struct", "map":
		return "object"
	case "bool":
		return "boolean"
	}
	return "value of another type"
}

// checkCharacters refuses a character the downstream systems cannot
// process (docs/interface.md sections 1.6 and 7: "for example an emoji"):
// an Extended_Pictographic character (U+2705, U+2615, U+2764, ...) or any
// character outside the Basic Multilingual Plane, as internal/emoji
// defines them for the SDK too. It looks at decoded strings, every field
// and key of the body, so a \ud83d\ude00 or \u2705 escape is caught too.
func checkCharacters(body []byte) *apiError {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return errFormat("", "The body is not valid JSON.")
	}
	if path, r, ok := findRefused(v, ""); ok {
		return newError(http.StatusBadRequest, "FORMAT_ERROR",
			"%s holds %U, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).",
			orBody(path), r).at(path)
	}
	return nil
}

func orBody(path string) string {
	if path == "" {
		return "The body"
	}
	return path
}

// findRefused returns the path of the first string in v holding a
// character [emoji.Refused] reports, and that character. Map keys are
// visited in sorted order, so one body always gives the same answer.
func findRefused(v any, path string) (string, rune, bool) {
	switch t := v.(type) {
	case string:
		if i := emoji.Index(t); i >= 0 {
			r, _ := utf8.DecodeRuneInString(t[i:])
			return path, r, true
		}
	case []any:
		for i, e := range t {
			if p, r, ok := findRefused(e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, r, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, r, ok := findRefused(k, join(path, k)); ok {
				return p, r, true
			}
			if p, r, ok := findRefused(t[k], join(path, k)); ok {
				return p, r, true
			}
		}
	}
	return "", 0, false
}

// join builds a field path such as "payments[0].creditorName".
func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// single checks one payment (a single or periodic payment, or one entry of
// a bulk payment when withDebtor is false).
func (c paymentCheck) single(b *paymentBody, prefix string, withDebtor bool) *apiError {
	if e := c.amount(b.InstructedAmount, join(prefix, "instructedAmount")); e != nil {
		return e
	}
	if e := requiredText(b.CreditorName, join(prefix, "creditorName"), 1, maxNameLen); e != nil {
		return e
	}
	if e := c.creditorAccount(b.CreditorAccount, join(prefix, "creditorAccount")); e != nil {
		return e
	}
	if e := c.creditorAgent(b, prefix); e != nil {
		return e
	}
	if e := c.address(b.CreditorAddress, join(prefix, "creditorAddress")); e != nil {
		return e
	}
	if withDebtor {
		if e := c.debtorAccount(b.DebtorAccount, join(prefix, "debtorAccount")); e != nil {
			return e
		}
	}
	if e := optionalText(b.UltimateDebtor, join(prefix, "ultimateDebtor"), 0, maxNameLen); e != nil {
		return e
	}
	if e := optionalText(b.EndToEndIdentification, join(prefix, "endToEndIdentification"), 0, maxEndToEndLen); e != nil {
		return e
	}
	if e := c.remittance(b, prefix); e != nil {
		return e
	}
	if b.PurposeCode != nil && !purposeCodes[*b.PurposeCode] {
		return errFormat(join(prefix, "purposeCode"), "purposeCode %q is not one of the allowed codes.", clip(*b.PurposeCode))
	}
	if withDebtor {
		return c.executionDate(b.RequestedExecutionDate, join(prefix, "requestedExecutionDate"))
	}
	return nil
}

// amount checks instructedAmount: a JSON string amount with exactly the
// currency's ISO 4217 minor units, greater than zero, in a known currency.
func (c paymentCheck) amount(a *paymentAmount, path string) *apiError {
	if a == nil {
		return errFormat(path, "%s is required.", path)
	}
	curPath := path + ".currency"
	if a.Currency == nil {
		return errFormat(curPath, "%s is required.", curPath)
	}
	cur := *a.Currency
	if !money.IsCurrency(cur) {
		return errFormat(curPath, "%s %q is not an ISO 4217 currency code.", curPath, clip(cur))
	}
	if c.product == productInstant && cur != "NOK" {
		return errFormat(curPath, "Instant payments are in NOK only.")
	}
	amtPath := path + ".amount"
	raw := bytes.TrimSpace(a.Amount)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return errFormat(amtPath, "%s is required.", amtPath)
	}
	if raw[0] != '"' {
		return errFormat(amtPath, "%s must be a JSON string (x-accept-fix: amount-as-string).", amtPath)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return errFormat(amtPath, "%s must be a JSON string.", amtPath)
	}
	units, _ := money.MinorUnits(cur)
	if !plainDecimal(text) {
		return errFormat(amtPath, "%s %q is not a decimal number such as \"150.00\".", amtPath, clip(text))
	}
	if fractionDigits(text) != units {
		return errFormat(amtPath, "%s must have exactly %d fraction digits for %s.", amtPath, units, cur)
	}
	m, err := money.Parse(text, cur)
	if err != nil {
		return errFormat(amtPath, "%s %q exceeds the precision of the interface.", amtPath, clip(text))
	}
	if !m.Positive() {
		return errFormat(amtPath, "%s must be greater than zero.", amtPath)
	}
	return nil
}

// plainDecimal reports whether s is digits with an optional fraction: no
// sign, exponent, spaces or thousands separators.
func plainDecimal(s string) bool {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) {
		return false
	}
	return !hasDot || (frac != "" && allDigits(frac))
}

func fractionDigits(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// domestic reports whether the product pays between Norwegian BBANs.
func (c paymentCheck) domestic() bool {
	return c.product == productNDCT || c.product == productInstant
}

func (c paymentCheck) creditorAccount(a *paymentAccount, path string) *apiError {
	if a == nil {
		return errFormat(path, "%s is required.", path)
	}
	switch {
	case c.domestic():
		if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
			return e
		}
	case c.product == productSEPA:
		if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
			return e
		}
	default: // cross-border: an IBAN, or a BBAN where the country has none
		if a.IBAN == nil && a.BBAN == nil {
			return errFormat(path, "%s must hold an iban or a bban.", path)
		}
		if a.IBAN != nil {
			if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
				return e
			}
		} else if e := requiredBBAN(a.BBAN, path+".bban", false); e != nil {
			return e
		}
	}
	return currencyField(a.Currency, path+".currency")
}

func (c paymentCheck) debtorAccount(a *paymentAccount, path string) *apiError {
	if a == nil {
		return errFormat(path, "%s is required.", path)
	}
	switch {
	case c.domestic():
		if (a.BBAN == nil) == (a.Other == nil) {
			return errFormat(path, "%s must hold exactly one of bban and other.", path)
		}
		if a.BBAN != nil {
			if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
				return e
			}
		} else if e := cardReference(a.Other, path+".other"); e != nil {
			return e
		}
	case c.product == productSEPA:
		if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
			return e
		}
	default:
		if a.IBAN == nil && a.BBAN == nil {
			return errFormat(path, "%s must hold an iban or a bban.", path)
		}
		if a.IBAN != nil {
			if e := requiredIBAN(a.IBAN, path+".iban"); e != nil {
				return e
			}
		} else if e := requiredBBAN(a.BBAN, path+".bban", true); e != nil {
			return e
		}
	}
	return currencyField(a.Currency, path+".currency")
}

// cardReference checks the "other" card account reference of an NDCT
// debtorAccount (docs/interface.md section 2.3a).
func cardReference(o *paymentCard, path string) *apiError {
	if e := requiredText(o.Identification, path+".identification", 1, maxBBANLen*2); e != nil {
		return e
	}
	p := path + ".schemeNameProprietary"
	if o.SchemeNameProprietary == nil {
		return errFormat(p, "%s is required.", p)
	}
	if *o.SchemeNameProprietary != cardAccountScheme {
		return errFormat(p, "%s must be %s.", p, cardAccountScheme)
	}
	return nil
}

// creditorAgent checks the BIC; an NDCT to a currency account needs one
// (docs/interface.md section 2.4).
func (c paymentCheck) creditorAgent(b *paymentBody, prefix string) *apiError {
	path := join(prefix, "creditorAgent")
	if b.CreditorAgent == nil {
		if c.domestic() && b.CreditorAccount != nil && b.CreditorAccount.Currency != nil && *b.CreditorAccount.Currency != "NOK" {
			return errFormat(path, "%s is required when paying to a currency account.", path)
		}
		return nil
	}
	if !validBIC(*b.CreditorAgent) {
		return errFormat(path, "%s %q is not a BIC.", path, clip(*b.CreditorAgent))
	}
	return nil
}

func (c paymentCheck) address(a *paymentAddress, path string) *apiError {
	if a == nil {
		if c.product == productSEPA {
			return nil
		}
		return errFormat(path, "%s is required.", path)
	}
	if e := optionalText(a.Street, path+".street", 0, maxNameLen); e != nil {
		return e
	}
	p := path + ".country"
	if a.Country == nil {
		return errFormat(p, "%s is required.", p)
	}
	if !isCountry(*a.Country) {
		return errFormat(p, "%s %q is not an ISO 3166-1 alpha-2 country code.", p, clip(*a.Country))
	}
	return nil
}

// remittance checks the unstructured text and the structured references,
// including KID check digits (docs/interface.md sections 2.4, 7).
func (c paymentCheck) remittance(b *paymentBody, prefix string) *apiError {
	if e := optionalText(b.RemittanceInformationUnstructured, join(prefix, "remittanceInformationUnstructured"), 1, maxUnstructuredLen); e != nil {
		return e
	}
	arrPath := join(prefix, "remittanceInformationStructuredArray")
	if b.RemittanceInformationStructuredArray != nil {
		if b.RemittanceInformationUnstructured != nil {
			return errFormat(arrPath, "Only one of remittanceInformationStructuredArray and remittanceInformationUnstructured may be set.")
		}
		if len(*b.RemittanceInformationStructuredArray) == 0 {
			return errFormat(arrPath, "%s must hold at least one reference.", arrPath)
		}
		for i, r := range *b.RemittanceInformationStructuredArray {
			if e := reference(&r, fmt.Sprintf("%s[%d]", arrPath, i)); e != nil {
				return e
			}
		}
	}
	if b.RemittanceInformationStructured != nil {
		return reference(b.RemittanceInformationStructured, join(prefix, "remittanceInformationStructured"))
	}
	return nil
}

func reference(r *paymentReference, path string) *apiError {
	kid := r.ReferenceType != nil && strings.EqualFold(*r.ReferenceType, remittanceKIDType)
	refPath := path + ".reference"
	if kid && (r.Reference == nil || *r.Reference == "") {
		return newError(http.StatusBadRequest, "KID_MISSING", "A structured reference of type KID needs the KID in reference.").at(refPath)
	}
	if e := requiredText(r.Reference, refPath, 1, maxReferenceLen); e != nil {
		return e
	}
	if e := optionalText(r.ReferenceType, path+".referenceType", 1, maxReferenceLen); e != nil {
		return e
	}
	if e := optionalText(r.ReferenceIssuer, path+".referenceIssuer", 1, maxReferenceLen); e != nil {
		return e
	}
	if kid && !validKID(*r.Reference) {
		return newError(http.StatusBadRequest, "KID_INVALID", "The KID does not have a valid check digit.").at(refPath)
	}
	return nil
}

// executionDate checks an optional requestedExecutionDate: ISO 8601 date,
// today or later (400 EXECUTION_DATE_INVALID for a past date).
func (c paymentCheck) executionDate(d *string, path string) *apiError {
	if d == nil {
		return nil
	}
	return c.futureDate(*d, path)
}

func (c paymentCheck) futureDate(d, path string) *apiError {
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return errFormat(path, "%s must be a date YYYY-MM-DD.", path)
	}
	if d < c.today {
		return newError(http.StatusBadRequest, "EXECUTION_DATE_INVALID", "%s %s is in the past.", path, d).at(path)
	}
	return nil
}

// periodic checks the fields of a periodic payment (Berlin Group 1.3):
// startDate, frequency, optional endDate, executionRule, dayOfExecution and,
// for MonthlyVariable, monthsOfExecution without duplicates (docs/interface.md section 7).
func (c paymentCheck) periodic(b *paymentBody) *apiError {
	if b.StartDate == nil {
		return errFormat("startDate", "startDate is required.")
	}
	if e := c.futureDate(*b.StartDate, "startDate"); e != nil {
		return e
	}
	if b.EndDate != nil {
		if _, err := time.Parse(time.DateOnly, *b.EndDate); err != nil {
			return errFormat("endDate", "endDate must be a date YYYY-MM-DD.")
		}
		if *b.EndDate < *b.StartDate {
			return errFormat("endDate", "endDate is before startDate.")
		}
	}
	if b.Frequency == nil {
		return errFormat("frequency", "frequency is required.")
	}
	if !periodicFrequencies[*b.Frequency] {
		return errFormat("frequency", "frequency %q is not a known frequency code.", clip(*b.Frequency))
	}
	if b.ExecutionRule != nil && *b.ExecutionRule != "following" && *b.ExecutionRule != "preceding" {
		return errFormat("executionRule", "executionRule must be following or preceding.")
	}
	if b.DayOfExecution != nil {
		if n, err := strconv.Atoi(*b.DayOfExecution); err != nil || n < 1 || n > 31 || !allDigits(*b.DayOfExecution) {
			return errFormat("dayOfExecution", "dayOfExecution must be a day of the month, 1 to 31.")
		}
	}
	if *b.Frequency != "MonthlyVariable" {
		return nil
	}
	if b.MonthsOfExecution == nil || len(*b.MonthsOfExecution) == 0 {
		return errFormat("monthsOfExecution", "monthsOfExecution is required with frequency MonthlyVariable.")
	}
	seen := map[int]bool{}
	for i, m := range *b.MonthsOfExecution {
		n, err := strconv.Atoi(m)
		p := fmt.Sprintf("monthsOfExecution[%d]", i)
		if err != nil || n < 1 || n > 12 || !allDigits(m) {
			return errFormat(p, "%s must be a month, 1 to 12.", p)
		}
		if seen[n] {
			return errFormat(p, "%s repeats month %d.", p, n)
		}
		seen[n] = true
	}
	return nil
}

// bulk checks a bulk payment: a debtorAccount and execution date for all,
// and 1 to maxBulkPayments entries each checked like a single payment.
func (c paymentCheck) bulk(b *paymentBody) *apiError {
	if e := c.debtorAccount(b.DebtorAccount, "debtorAccount"); e != nil {
		return e
	}
	if e := c.executionDate(b.RequestedExecutionDate, "requestedExecutionDate"); e != nil {
		return e
	}
	if b.Payments == nil || len(*b.Payments) == 0 {
		return errFormat("payments", "payments must hold at least one payment.")
	}
	if len(*b.Payments) > maxBulkPayments {
		return errFormat("payments", "payments holds more than %d payments.", maxBulkPayments)
	}
	for i := range *b.Payments {
		if e := c.single(&(*b.Payments)[i], fmt.Sprintf("payments[%d]", i), false); e != nil {
			return e
		}
	}
	return nil
}

// requiredText checks a required string of min to max characters.
func requiredText(s *string, path string, min, max int) *apiError {
	if s == nil {
		return errFormat(path, "%s is required.", path)
	}
	return optionalText(s, path, min, max)
}

// optionalText checks an optional string of min to max characters
// (characters, not bytes).
func optionalText(s *string, path string, min, max int) *apiError {
	if s == nil {
		return nil
	}
	n := utf8.RuneCountInString(*s)
	if n < min {
		return errFormat(path, "%s must not be empty.", path)
	}
	if n > max {
		return errFormat(path, "%s is longer than %d characters.", path, max)
	}
	return nil
}

func currencyField(s *string, path string) *apiError {
	if s == nil {
		return errFormat(path, "%s is required.", path)
	}
	if !money.IsCurrency(*s) {
		return errFormat(path, "%s %q is not an ISO 4217 currency code.", path, clip(*s))
	}
	return nil
}

// requiredBBAN checks a bban: 1 to 30 characters (docs/interface.md
// section 2.3a) and, for an account of a domestic payment (norwegian
// true), a Norwegian account number: 11 digits with a valid MOD-11 check
// digit. The printed form with spaces or dots ("8601 11 17947") is refused
// with its own message, as the SDK refuses it (see [formattedBBAN]).
//
// Why a domestic bban must be 11 digits although the interface allows 30
// characters: a Norwegian domestic credit transfer (and its instant form)
// pays between accounts of Norwegian banks, whose account numbers all have
// 11 digits; any other bban names no account the payment can reach, and
// this bank refuses it on arrival rather than rejecting the payment later.
// Cross-border payments take any bban of up to 30 characters.
func requiredBBAN(s *string, path string, norwegian bool) *apiError {
	if s == nil {
		return errFormat(path, "%s is required.", path)
	}
	if *s == "" {
		return errFormat(path, "%s must not be empty.", path)
	}
	if utf8.RuneCountInString(*s) > maxBBANLen {
		return errFormat(path, "%s is longer than %d characters.", path, maxBBANLen)
	}
	if !norwegian {
		return nil
	}
	if formattedBBAN(*s) {
		return errFormat(path, "%s must be written as 11 digits without spaces or dots.", path)
	}
	if !validNorwegianBBAN(*s) {
		return errFormat(path, "%s must be a Norwegian account number: 11 digits with a valid MOD11 check digit.", path)
	}
	return nil
}

// formattedBBAN reports a Norwegian account number in its printed form:
// digits with spaces or dots between them, 11 digits in all. The emulator
// refuses it, as the SDK's validation does; neither rewrites an account
// number.
func formattedBBAN(s string) bool {
	n, seps := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			n++
		case c == ' ' || c == '.':
			seps++
		default:
			return false
		}
	}
	return n == 11 && seps > 0
}

// requiredIBAN checks an iban: at most 34 characters, the country's length
// and check digits (mod-97), and for Norway the BBAN's MOD-11 digit.
func requiredIBAN(s *string, path string) *apiError {
	if s == nil {
		return errFormat(path, "%s is required.", path)
	}
	if utf8.RuneCountInString(*s) > maxIBANLen {
		return errFormat(path, "%s is longer than %d characters.", path, maxIBANLen)
	}
	if !validIBAN(*s) {
		return errFormat(path, "%s is not a valid IBAN (country, length or check digits).", path)
	}
	return nil
}

// clip shortens a quoted bad value in an error text.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxBodyFieldTextLen {
		return s
	}
	r := []rune(s)
	return string(r[:maxBodyFieldTextLen]) + "…"
}

// Check digits and code lists.

// noBBANWeights are the MOD-11 weights of a Norwegian account number over
// its first ten digits (the Norwegian MOD-11 rule).
var noBBANWeights = [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}

// validNorwegianBBAN reports whether s is 11 digits whose last digit is the
// MOD-11 check digit of the first ten (remainder 0 gives 0, remainder 1
// makes the number invalid).
func validNorwegianBBAN(s string) bool {
	if len(s) != 11 || !allDigits(s) {
		return false
	}
	sum := 0
	for i, w := range noBBANWeights {
		sum += int(s[i]-'0') * w
	}
	check := 11 - sum%11
	switch check {
	case 11:
		check = 0
	case 10:
		return false
	}
	return int(s[10]-'0') == check
}

// validKID reports whether s is a KID: 2 to 25 digits whose last is a
// MOD-10 (Luhn) or MOD-11 check digit; a MOD-11 check value of 10 is
// written '-'.
func validKID(s string) bool {
	if len(s) < 2 || len(s) > 25 || !allDigits(s[:len(s)-1]) {
		return false
	}
	last := s[len(s)-1]
	if last == '-' {
		return kidMod11(s[:len(s)-1]) == 10
	}
	if last < '0' || last > '9' {
		return false
	}
	d := int(last - '0')
	return kidLuhn(s[:len(s)-1]) == d || kidMod11(s[:len(s)-1]) == d
}

// kidLuhn is the MOD-10 (Luhn) check digit of digits.
func kidLuhn(digits string) int {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return (10 - sum%10) % 10
}

// kidMod11 is the MOD-11 check value of digits with weights 2 to 7 from
// the right: 0 to 10 (10 is written '-').
func kidMod11(digits string) int {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		w := 2 + (len(digits)-1-i)%6
		sum += int(digits[i]-'0') * w
	}
	return (11 - sum%11) % 11
}

// validIBAN reports whether s is an IBAN in electronic form: a country of
// the IBAN registry with its length, check digits that make the mod-97
// remainder 1 (ISO 13616), and for Norway a valid BBAN check digit.
func validIBAN(s string) bool {
	if len(s) < 5 || len(s) > maxIBANLen {
		return false
	}
	if want, ok := ibanLengths[s[:2]]; !ok || want != len(s) {
		return false
	}
	if !allDigits(s[2:4]) {
		return false
	}
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	if rem != 1 {
		return false
	}
	return s[:2] != "NO" || validNorwegianBBAN(s[4:])
}

// validBIC reports whether s is a BIC (ISO 9362): 4 letters of institution,
// 2 letters of country, 2 letters or digits of location, and optionally 3
// letters or digits of branch.
func validBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if i < 6 && !letter || i >= 6 && !letter && !digit {
			return false
		}
	}
	return isCountry(s[4:6])
}

// ibanLengths is the IBAN length per country of the SWIFT IBAN registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16,
	"BG": 22, "BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22,
	"CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20,
	"EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22,
	"GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21,
	"HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30,
	"KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
	"LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
	"MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
	"PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
	"SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26,
	"UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// countryCodes holds the 249 officially assigned ISO 3166-1 alpha-2 codes.
const countryCodes = "" +
	"AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ " +
	"BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ " +
	"DE DJ DK DM DO DZ " +
	"EC EE EG EH ER ES ET " +
	"FI FJ FK FM FO FR " +
	"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY " +
	"HK HM HN HR HT HU " +
	"ID IE IL IM IN IO IQ IR IS IT " +
	"JE JM JO JP " +
	"KE KG KH KI KM KN KP KR KW KY KZ " +
	"LA LB LC LI LK LR LS LT LU LV LY " +
	"MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ " +
	"NA NC NE NF NG NI NL NO NP NR NU NZ " +
	"OM " +
	"PA PE PF PG PH PK PL PM PN PR PS PT PW PY " +
	"QA " +
	"RE RO RS RU RW " +
	"SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ " +
	"TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ " +
	"UA UG UM US UY UZ " +
	"VA VC VE VG VI VN VU " +
	"WF WS " +
	"YE YT " +
	"ZA ZM ZW"

// isCountry reports whether s is an assigned ISO 3166-1 alpha-2 code.
func isCountry(s string) bool {
	if len(s) != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
		return false
	}
	for i := 0; i+2 <= len(countryCodes); i += 3 {
		if countryCodes[i:i+2] == s {
			return true
		}
	}
	return false
}
