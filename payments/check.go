package payments

import (
	"errors"
	"strings"

	"github.com/tppkit/psd2/internal/checkdigit"
)

// Reasons a [CheckError] carries; match them with errors.Is.
var (
	// ErrLength: the value has the wrong number of characters.
	ErrLength = checkdigit.ErrLength
	// ErrCharacters: the value holds characters its format does not allow
	// (spaces, separators, lower case, letters in a number).
	ErrCharacters = checkdigit.ErrCharacters
	// ErrCheckDigit: the check digits do not match.
	ErrCheckDigit = checkdigit.ErrCheckDigit
	// ErrCountry: the country code is not assigned, or has no IBAN.
	ErrCountry = checkdigit.ErrCountry
)

// ErrInvalidIdentifier matches every [*CheckError] with errors.Is.
var ErrInvalidIdentifier = errors.New("payments: invalid identifier")

// CheckError says why an account number, KID or BIC was refused. It never
// quotes the value (account numbers are personal data).
type CheckError struct {
	// Kind is "BBAN", "IBAN", "KID" or "BIC".
	Kind string
	// Err is ErrLength, ErrCharacters, ErrCheckDigit or ErrCountry.
	Err error
}

// Error returns "payments: invalid <kind>: <reason>".
func (e *CheckError) Error() string { return "payments: invalid " + e.Kind + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *CheckError) Unwrap() error { return e.Err }

// Is matches [ErrInvalidIdentifier].
func (e *CheckError) Is(target error) bool { return target == ErrInvalidIdentifier }

func checkErr(kind string, err error) error {
	if err == nil {
		return nil
	}
	return &CheckError{Kind: kind, Err: err}
}

// CheckBBAN checks a Norwegian account number (BBAN): 11 digits without
// separators, the last the MOD-11 check digit of the first ten
// with weights 5,4,3,2,7,6,5,4,3,2. "86011117947" passes; the printed form
// "8601 11 17947" does not (see [NormalizeBBAN]).
func CheckBBAN(s string) error { return checkErr("BBAN", checkdigit.NorwegianBBAN(s)) }

// NormalizeBBAN returns a Norwegian account number typed in its printed
// form ("8601 11 17947", "8601.11.17947": digits with spaces or dots that
// make 11 digits) in the electronic form the bank takes ("86011117947").
// Any other input is returned unchanged. It does not check the MOD-11
// digit; [CheckBBAN] does. Validation accepts the printed form in a
// payment and sends it as written, without the MOD-11 check (docs:
// package payments, Validation); normalising first lets the SDK check the
// digit before the bank sees the account number.
func NormalizeBBAN(s string) string {
	if !formattedNorwegianBBAN(s) {
		return s
	}
	return strings.NewReplacer(" ", "", ".", "").Replace(s)
}

// CheckIBAN checks an IBAN in electronic form (upper case, no spaces):
// a country of the SWIFT IBAN registry with its length (NO 15, DE 22, GB
// 22, ...) and ISO 13616 mod-97 check digits. It does not check the
// national check digits inside; for Norway use [CheckBBAN] on s[4:] as
// the validation of [SEPA] does.
func CheckIBAN(s string) error { return checkErr("IBAN", checkdigit.IBAN(s)) }

// CheckKID checks a Norwegian KID: 2 to 25 digits, the last a MOD-10
// (Luhn) or MOD-11 check digit; a MOD-11 check value of 10 is written
// '-'.
func CheckKID(s string) error { return checkErr("KID", checkdigit.KID(s)) }

// CheckBIC checks a BIC (ISO 9362): 8 or 11 upper-case characters; 4
// letters (institution), an assigned ISO 3166-1 country code, 2 letters or
// digits (location), optionally 3 letters or digits (branch).
func CheckBIC(s string) error { return checkErr("BIC", checkdigit.BIC(s)) }

// IsCountry reports whether s is an assigned ISO 3166-1 alpha-2 country
// code (docs/interface.md section 2.1, Country), upper case.
func IsCountry(s string) bool { return checkdigit.IsCountry(s) }
