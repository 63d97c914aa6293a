package paymentrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Limits of docs/interface.md sections 2.3 to 2.5 and 8.
const (
	maxNameLen         = 70               // creditorName, ultimateDebtor, street
	maxBBANLen         = rules.MaxBBANLen // bban
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

// paymentCheck validates the body of one payment request. today is the
// bank's current date (YYYY-MM-DD, [rules.BankDate]) for the
// execution-date rules.
type paymentCheck struct {
	service string
	product string
	today   string
}

// Check decodes a payment request body of service (a [rules.PaymentServices]
// entry) and product ([rules.KnownProduct]) with [Decode] and checks it on
// the bank's date at now ([rules.BankDate]: Europe/Oslo). It returns the
// decoded body (without "payments" unless service is bulk-payments), or
// the first violation. The order of the checks is fixed,
// so one body always gives the same answer.
func Check(service, product string, body []byte, now time.Time) (*Body, *rules.Violation) {
	b, v := Decode(body)
	if v != nil {
		return nil, v
	}
	c := paymentCheck{service: service, product: product, today: rules.BankDate(now)}
	if v := c.check(b); v != nil {
		return nil, v
	}
	if service != rules.ServiceBulk {
		// "payments" is a member of a bulk payment's body only: in
		// another service's body it is ignored like any unknown member,
		// so that nothing reads its unchecked entries as the payment.
		b.Payments = nil
	}
	return b, nil
}

// check applies the rules of c's service and product to b.
func (c paymentCheck) check(b *Body) *rules.Violation {
	if c.service == rules.ServiceBulk {
		return c.bulk(b)
	}
	if e := c.single(b, "", true); e != nil {
		return e
	}
	if c.service == rules.ServicePeriodic {
		return c.periodic(b)
	}
	return nil
}

// single checks one payment (a single or periodic payment, or one entry of
// a bulk payment when withDebtor is false).
func (c paymentCheck) single(b *Body, prefix string, withDebtor bool) *rules.Violation {
	if e := c.amount(b.InstructedAmount, rules.JoinPath(prefix, "instructedAmount")); e != nil {
		return e
	}
	if e := rules.RequiredText(b.CreditorName, rules.JoinPath(prefix, "creditorName"), 1, maxNameLen); e != nil {
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
	if e := rules.OptionalText(b.UltimateDebtor, rules.JoinPath(prefix, "ultimateDebtor"), 0, maxNameLen); e != nil {
		return e
	}
	if e := rules.OptionalText(b.EndToEndIdentification, rules.JoinPath(prefix, "endToEndIdentification"), 0, maxEndToEndLen); e != nil {
		return e
	}
	if e := c.remittance(b, prefix); e != nil {
		return e
	}
	if b.PurposeCode != nil && !purposeCodes[*b.PurposeCode] {
		return rules.Format(rules.JoinPath(prefix, "purposeCode"), "purposeCode %q is not one of the allowed codes.", rules.Clip(*b.PurposeCode))
	}
	if withDebtor {
		return c.executionDate(b.RequestedExecutionDate, rules.JoinPath(prefix, "requestedExecutionDate"))
	}
	return nil
}

// amount checks instructedAmount: a JSON string amount with exactly the
// currency's ISO 4217 minor units, greater than zero, in a known currency.
func (c paymentCheck) amount(a *Amount, path string) *rules.Violation {
	if a == nil {
		return rules.Format(path, "%s is required.", path)
	}
	curPath := path + ".currency"
	if a.Currency == nil {
		return rules.Format(curPath, "%s is required.", curPath)
	}
	cur := *a.Currency
	if !money.IsCurrency(cur) {
		return rules.Format(curPath, "%s %q is not an ISO 4217 currency code.", curPath, rules.Clip(cur))
	}
	if c.product == rules.ProductInstant && cur != "NOK" {
		return rules.Format(curPath, "Instant payments are in NOK only.")
	}
	amtPath := path + ".amount"
	raw := bytes.TrimSpace(a.Amount)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return rules.Format(amtPath, "%s is required.", amtPath)
	}
	if raw[0] != '"' {
		return rules.Format(amtPath, "%s must be a JSON string (x-accept-fix: amount-as-string).", amtPath)
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return rules.Format(amtPath, "%s must be a JSON string.", amtPath)
	}
	units, _ := money.MinorUnits(cur)
	if !plainDecimal(text) {
		return rules.Format(amtPath, "%s %q is not a decimal number such as \"150.00\".", amtPath, rules.Clip(text))
	}
	if fractionDigits(text) != units {
		return rules.Format(amtPath, "%s must have exactly %d fraction digits for %s.", amtPath, units, cur)
	}
	m, err := money.Parse(text, cur)
	if err != nil {
		return rules.Format(amtPath, "%s %q exceeds the precision of the interface.", amtPath, rules.Clip(text))
	}
	if !m.Positive() {
		return rules.Format(amtPath, "%s must be greater than zero.", amtPath)
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

// fractionDigits is the number of digits after the point of a plain
// decimal.
func fractionDigits(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// remittance checks the unstructured text and the structured references,
// including KID check digits (docs/interface.md sections 2.4, 7).
func (c paymentCheck) remittance(b *Body, prefix string) *rules.Violation {
	if e := rules.OptionalText(b.RemittanceInformationUnstructured, rules.JoinPath(prefix, "remittanceInformationUnstructured"), 1, maxUnstructuredLen); e != nil {
		return e
	}
	arrPath := rules.JoinPath(prefix, "remittanceInformationStructuredArray")
	if b.RemittanceInformationStructuredArray != nil {
		if b.RemittanceInformationUnstructured != nil {
			return rules.Format(arrPath, "Only one of remittanceInformationStructuredArray and remittanceInformationUnstructured may be set.")
		}
		if len(*b.RemittanceInformationStructuredArray) == 0 {
			return rules.Format(arrPath, "%s must hold at least one reference.", arrPath)
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

// reference checks one structured remittance reference: a KID (type
// KID, in any case) must be present and carry a valid check digit
// (KID_MISSING, KID_INVALID); every text is 1 to 35 characters.
func reference(r *Reference, path string) *rules.Violation {
	kid := r.ReferenceType != nil && strings.EqualFold(*r.ReferenceType, remittanceKIDType)
	refPath := path + ".reference"
	if kid && (r.Reference == nil || *r.Reference == "") {
		return &rules.Violation{Code: rules.CodeKIDMissing, Path: refPath, Message: "A structured reference of type KID needs the KID in reference."}
	}
	if e := rules.RequiredText(r.Reference, refPath, 1, maxReferenceLen); e != nil {
		return e
	}
	if e := rules.OptionalText(r.ReferenceType, path+".referenceType", 1, maxReferenceLen); e != nil {
		return e
	}
	if e := rules.OptionalText(r.ReferenceIssuer, path+".referenceIssuer", 1, maxReferenceLen); e != nil {
		return e
	}
	if kid && !rules.ValidKID(*r.Reference) {
		return &rules.Violation{Code: rules.CodeKIDInvalid, Path: refPath, Message: "The KID does not have a valid check digit."}
	}
	return nil
}

// executionDate checks an optional requestedExecutionDate: ISO 8601 date,
// today or later (400 EXECUTION_DATE_INVALID for a past date).
func (c paymentCheck) executionDate(d *string, path string) *rules.Violation {
	if d == nil {
		return nil
	}
	return c.futureDate(*d, path)
}

// futureDate checks a date that must be the bank's today or later.
func (c paymentCheck) futureDate(d, path string) *rules.Violation {
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return rules.Format(path, "%s must be a date YYYY-MM-DD.", path)
	}
	if d < c.today {
		return &rules.Violation{Code: rules.CodeExecutionDateInvalid, Path: path, Message: fmt.Sprintf("%s %s is in the past.", path, d)}
	}
	return nil
}
