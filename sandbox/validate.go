package sandbox

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/internal/emoji"
	"github.com/tppkit/psd2/money"
)

// Local checks. Each refuses a request before anything is sent with a
// [*client.ValidationError] naming the JSON field (Field) and saying what is
// wrong (Reason), wrapped as "sandbox: invalid <field>: <reason>"; it
// matches client.ErrValidation. Reasons never quote the value: customer
// numbers (mocked national identity numbers), names, account numbers and
// remittance text stay out of error strings, as they stay out of the
// printed forms (forms.go).

// Lengths of mock-data text fields in characters (runes): names 70, bban
// 30, iban 34 and unstructured remittance 140 (docs/interface.md section
// 8); the masked PAN 35 and transactionDetails 140 are assumptions the
// emulator shares.
const (
	maxName       = 70
	maxBBAN       = 30
	maxIBAN       = 34
	maxRemittance = 140
	maxMaskedPan  = 35
	maxDetails    = 140
)

// invalid returns the error of a broken rule.
func invalid(field, reason string) error {
	return fmt.Errorf("sandbox: %w", &client.ValidationError{Field: field, Reason: reason})
}

// checkText checks a text field: valid UTF-8, no character the bank's
// downstream systems cannot process (an emoji or pictograph, or anything
// outside the Basic Multilingual Plane: [emoji.Refused], the rule package
// payments applies; docs/interface.md sections 1.6 and 7: 400), and
// minLen to maxLen characters (maxLen 0: no upper limit). An empty
// optional field (minLen 0) passes.
func checkText(field, s string, minLen, maxLen int) error {
	if s == "" && minLen == 0 {
		return nil
	}
	if !utf8.ValidString(s) {
		return invalid(field, "not valid UTF-8")
	}
	if i := emoji.Index(s); i >= 0 {
		return invalid(field, fmt.Sprintf("character %d is one the bank cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane)",
			utf8.RuneCountInString(s[:i])+1))
	}
	n := utf8.RuneCountInString(s)
	switch {
	case minLen > 0 && maxLen > 0 && (n < minLen || n > maxLen):
		return invalid(field, fmt.Sprintf("must have %d to %d characters", minLen, maxLen))
	case n < minLen:
		return invalid(field, "required")
	case maxLen > 0 && n > maxLen:
		return invalid(field, fmt.Sprintf("must have at most %d characters", maxLen))
	}
	return nil
}

// checkCustomerNumber checks a customer number: 11 digits (a national
// identity number) or 9 (an organisation number).
func checkCustomerNumber(field, n string) error {
	if !digits(n) || (len(n) != 11 && len(n) != 9) {
		return invalid(field, "must be 11 digits (national identity number) or 9 digits (organisation number)")
	}
	return nil
}

// checkOwner checks the owner of a mock account or card account:
// customerId or customerNumber, the number in its format.
func checkOwner(id, number string) error {
	if id == "" && number == "" {
		return invalid("customerId", "customerId or customerNumber required")
	}
	if err := checkText("customerId", id, 0, maxIDLen); err != nil {
		return err
	}
	if number != "" {
		return checkCustomerNumber("customerNumber", number)
	}
	return nil
}

// checkCurrency checks an ISO 4217 code in upper case; optional says
// whether it may be empty.
func checkCurrency(field, cur string, optional bool) error {
	switch {
	case cur == "" && optional:
		return nil
	case cur == "":
		return invalid(field, "required")
	case !money.IsCurrency(cur):
		return invalid(field, "must be an ISO 4217 currency code in upper case")
	}
	return nil
}

// checkRef checks the IBAN and BBAN of an account reference as text.
func checkRef(field string, r *AccountRef) error {
	if r == nil {
		return nil
	}
	if err := checkText(field+".iban", r.IBAN, 0, maxIBAN); err != nil {
		return err
	}
	return checkText(field+".bban", r.BBAN, 0, maxBBAN)
}

// checkNumber refuses a value that is not a decimal number (json.Number
// would otherwise fail only when the body is encoded).
func checkNumber(field string, n json.Number, optional bool) error {
	if n == "" {
		if optional {
			return nil
		}
		return invalid(field, "required")
	}
	if _, err := decimal.NewFromString(string(n)); err != nil || !json.Valid([]byte(n)) {
		return invalid(field, "not a number")
	}
	return nil
}

// checkAmount checks an amount of mock data: a number (checkNumber)
// written without an exponent, and, when cur is an ISO 4217 code, one
// with at most the currency's minor units as fraction digits and at most
// money.MaxIntegerDigits digits before the point: an Amount's rule
// (docs/interface.md sections 2.1 and 8), which the sandbox applies to
// mock amounts too and answers 400 otherwise. cur "" (a transaction
// booked in the account's currency, which the SDK does not know) checks
// the form only.
func checkAmount(field string, n json.Number, cur string, optional bool) error {
	if err := checkNumber(field, n, optional); err != nil || n == "" {
		return err
	}
	if strings.ContainsAny(string(n), "eE") {
		return invalid(field, "must be a decimal number without an exponent")
	}
	if !money.IsCurrency(cur) {
		return nil
	}
	if _, err := money.Parse(string(n), cur); err != nil {
		units, _ := money.MinorUnits(cur)
		return invalid(field, fmt.Sprintf("not an amount in %s: at most %d fraction digits and %d digits before the point",
			cur, units, money.MaxIntegerDigits))
	}
	return nil
}

// checkBBAN checks the BBAN of a mock account: a Norwegian account
// number, 11 digits the last of which is the MOD-11 check digit of the
// others (docs/interface.md section 10 "Check digits"); the sandbox
// refuses any other.
func checkBBAN(field, bban string) error {
	switch checkdigit.NorwegianBBAN(bban) {
	case nil:
		return nil
	case checkdigit.ErrCheckDigit:
		return invalid(field, "the MOD-11 check digit does not match")
	}
	return invalid(field, "must be 11 digits")
}

// checkStatus checks a bookingStatus: empty, booked or pending.
func checkStatus(field, st string) error {
	if st != "" && st != Booked && st != Pending {
		return invalid(field, "must be booked or pending")
	}
	return nil
}

// checkDate checks an optional date YYYY-MM-DD.
func checkDate(field, d string) error {
	if d == "" {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return invalid(field, "not a date YYYY-MM-DD")
	}
	return nil
}

// at is the JSON path of element i of a body array: "[i].".
func at(i int) string { return "[" + strconv.Itoa(i) + "]." }

// firstErr returns the first non-nil error of errs.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
