package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// This file holds the rules a payment body must follow, the way the bank
// checks them (docs/interface.md sections 2.3 to 2.5 and 8), on a body
// decoded by decodePaymentBody (paymentbody.go); account numbers, KIDs,
// IBANs, BICs and country codes are checked by internal/rules (checkdigits.go). Every check
// returns the first problem found as an *apiError naming the field in its
// path. The order of the checks is fixed, so one body always gives the
// same answer. Characters the bank cannot process are refused for every
// body before (checkBody, auth.go).
//
// Rules that the interface leaves open and this emulator decides (each kept in
// one place here):
//   - an amount must have exactly the currency's minor units as fraction
//     digits ("150.00" NOK; "150" NOK is refused), as docs/interface.md section 2.1 says
//     "must equal";
//   - a bban of a domestic payment (NDCT, instant) is refused only where
//     section 2.3a refuses it: empty, more than 30 characters, or 11
//     digits with a wrong MOD-11 check digit; any other notation, the
//     printed form "8601 11 17947" included, is taken as written
//     (requiredBBAN);
//   - an IBAN is written in the electronic form: upper case, no spaces;
//   - instant payments (straks) are in NOK only;
//   - empty strings count as present (and then break "non-empty" rules);
//     JSON null counts as absent;
//   - unknown fields are ignored, as the platform does.

// Limits of docs/interface.md sections 2.3 to 2.5 and 8.
const (
	maxNameLen         = 70               // creditorName, ultimateDebtor, street
	maxBBANLen         = 30               // bban
	maxIBANLen         = rules.MaxIBANLen // iban
	maxUnstructuredLen = 140              // remittanceInformationUnstructured
	maxReferenceLen    = 35               // reference, referenceType, referenceIssuer
	maxEndToEndLen     = 35               // endToEndIdentification
	maxBulkPayments    = 100              // emulator limit: entries in one bulk payment
	cardAccountScheme  = "creditCardAccount"
	remittanceKIDType  = "KID"
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

// paymentCheck validates the body of one payment request. today is the
// bank's current date (YYYY-MM-DD, [bankDate]) for the execution-date
// rules.
type paymentCheck struct {
	service string
	product string
	today   string
}

// checkPaymentBody decodes and validates a payment request body for
// service and product on the bank's date at now ([bankDate]: Europe/Oslo).
// It returns the decoded body or the first problem.
func checkPaymentBody(service, product string, body []byte, now time.Time) (*paymentBody, *apiError) {
	b, e := decodePaymentBody(body)
	if e != nil {
		return nil, e
	}
	c := paymentCheck{service: service, product: product, today: rules.BankDate(now)}
	if e := c.check(b); e != nil {
		return nil, e
	}
	return b, nil
}

// check applies the rules of c's service and product to b.
func (c paymentCheck) check(b *paymentBody) *apiError {
	if c.service == serviceBulk {
		return c.bulk(b)
	}
	if e := c.single(b, "", true); e != nil {
		return e
	}
	if c.service == servicePeriodic {
		return c.periodic(b)
	}
	return nil
}

// single checks one payment (a single or periodic payment, or one entry of
// a bulk payment when withDebtor is false).
func (c paymentCheck) single(b *paymentBody, prefix string, withDebtor bool) *apiError {
	if e := c.amount(b.InstructedAmount, rules.JoinPath(prefix, "instructedAmount")); e != nil {
		return e
	}
	if e := requiredText(b.CreditorName, rules.JoinPath(prefix, "creditorName"), 1, maxNameLen); e != nil {
		return e
	}
	if e := c.creditorAccount(b.CreditorAccount, rules.JoinPath(prefix, "creditorAccount")); e != nil {
		return e
	}
	if e := c.creditorAgent(b, prefix); e != nil {
		return e
	}
	if e := c.address(b.CreditorAddress, rules.JoinPath(prefix, "creditorAddress")); e != nil {
		return e
	}
	if withDebtor {
		if e := c.debtorAccount(b.DebtorAccount, rules.JoinPath(prefix, "debtorAccount")); e != nil {
			return e
		}
	}
	if e := optionalText(b.UltimateDebtor, rules.JoinPath(prefix, "ultimateDebtor"), 0, maxNameLen); e != nil {
		return e
	}
	if e := optionalText(b.EndToEndIdentification, rules.JoinPath(prefix, "endToEndIdentification"), 0, maxEndToEndLen); e != nil {
		return e
	}
	if e := c.remittance(b, prefix); e != nil {
		return e
	}
	if b.PurposeCode != nil && !purposeCodes[*b.PurposeCode] {
		return errFormat(rules.JoinPath(prefix, "purposeCode"), "purposeCode %q is not one of the allowed codes.", clip(*b.PurposeCode))
	}
	if withDebtor {
		return c.executionDate(b.RequestedExecutionDate, rules.JoinPath(prefix, "requestedExecutionDate"))
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
	if intPart == "" || !rules.AllDigits(intPart) {
		return false
	}
	return !hasDot || (frac != "" && rules.AllDigits(frac))
}

func fractionDigits(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
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
	path := rules.JoinPath(prefix, "creditorAgent")
	if b.CreditorAgent == nil {
		if c.domestic() && b.CreditorAccount != nil && b.CreditorAccount.Currency != nil && *b.CreditorAccount.Currency != "NOK" {
			return errFormat(path, "%s is required when paying to a currency account.", path)
		}
		return nil
	}
	if !rules.ValidBIC(*b.CreditorAgent) {
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
	if !rules.IsCountry(*a.Country) {
		return errFormat(p, "%s %q is not an ISO 3166-1 alpha-2 country code.", p, clip(*a.Country))
	}
	return nil
}

// remittance checks the unstructured text and the structured references,
// including KID check digits (docs/interface.md sections 2.4, 7).
func (c paymentCheck) remittance(b *paymentBody, prefix string) *apiError {
	if e := optionalText(b.RemittanceInformationUnstructured, rules.JoinPath(prefix, "remittanceInformationUnstructured"), 1, maxUnstructuredLen); e != nil {
		return e
	}
	arrPath := rules.JoinPath(prefix, "remittanceInformationStructuredArray")
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
		return reference(b.RemittanceInformationStructured, rules.JoinPath(prefix, "remittanceInformationStructured"))
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
	if kid && !rules.ValidKID(*r.Reference) {
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
		if n, err := strconv.Atoi(*b.DayOfExecution); err != nil || n < 1 || n > 31 || !rules.AllDigits(*b.DayOfExecution) {
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
		if err != nil || n < 1 || n > 12 || !rules.AllDigits(m) {
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
// true), a Norwegian account number written as 11 digits must carry a
// valid MOD-11 check digit. Any other bban of up to 30 characters is
// accepted as written, as section 2.3a says, spaces and dots included
// ("8601 11 17947"): a creditor the bank cannot reach is the batch's to
// reject, a debtor that is not the PSU's the SCA's.
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
	if len(*s) == 11 && rules.AllDigits(*s) && !rules.ValidNorwegianBBAN(*s) {
		return errFormat(path, "%s is not a valid Norwegian account number: its MOD11 check digit is wrong.", path)
	}
	return nil
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
	if !rules.ValidIBAN(*s) {
		return errFormat(path, "%s is not a valid IBAN (country, length or check digits).", path)
	}
	return nil
}
