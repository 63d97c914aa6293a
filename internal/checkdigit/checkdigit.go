// Package checkdigit holds the check-digit algorithms and code lists the
// payments package validates requests with (docs/interface.md section 10 "Check digits"):
// the Norwegian account number (BBAN, MOD-11), the IBAN (ISO 13616,
// mod-97, with the SWIFT registry's country lengths), the Norwegian KID
// (MOD-10 or MOD-11), the BIC (ISO 9362) and the ISO 3166-1 alpha-2
// country codes.
//
// Every function is pure, allocation-free on valid input and never panics.
// The input must be in electronic form: no spaces, dots or lower case.
package checkdigit

import "errors"

// Reasons a value is refused. Each checker returns one of them.
var (
	// ErrLength: the value has the wrong number of characters.
	ErrLength = errors.New("wrong length")
	// ErrCharacters: the value holds characters its format does not allow.
	ErrCharacters = errors.New("invalid characters")
	// ErrCheckDigit: the check digits do not match.
	ErrCheckDigit = errors.New("check digit mismatch")
	// ErrCountry: the country code is not assigned (or has no IBAN).
	ErrCountry = errors.New("unknown country code")
)

// bbanWeights are the MOD-11 weights over the first ten digits of a
// Norwegian account number (docs/interface.md section 10 "Check digits").
var bbanWeights = [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}

// NorwegianBBAN checks a Norwegian account number: 11 digits, the last the
// MOD-11 check digit of the first ten (weights 5,4,3,2,7,6,5,4,3,2;
// remainder 0 gives digit 0, remainder 1 means no number is valid).
func NorwegianBBAN(s string) error {
	if len(s) != 11 {
		return ErrLength
	}
	if !AllDigits(s) {
		return ErrCharacters
	}
	d, ok := BBANCheckDigit(s[:10])
	if !ok || int(s[10]-'0') != d {
		return ErrCheckDigit
	}
	return nil
}

// BBANCheckDigit returns the MOD-11 check digit of the first ten digits of
// a Norwegian account number, and false when ten is not ten digits or no
// check digit exists (the remainder is 1).
func BBANCheckDigit(ten string) (int, bool) {
	if len(ten) != 10 || !AllDigits(ten) {
		return 0, false
	}
	sum := 0
	for i, w := range bbanWeights {
		sum += int(ten[i]-'0') * w
	}
	switch r := sum % 11; r {
	case 0:
		return 0, true
	case 1:
		return 0, false
	default:
		return 11 - r, true
	}
}

// KID checks a Norwegian KID (customer identification number on a
// payment): 2 to 25 characters, all digits but the last, which is a MOD-10
// (Luhn) or MOD-11 check digit of the others; a MOD-11 check value of 10 is
// written '-' (docs/interface.md section 10 "Check digits"). The bank does not say which of
// the two methods a creditor uses, so either is accepted.
func KID(s string) error {
	if len(s) < 2 || len(s) > 25 {
		return ErrLength
	}
	body, last := s[:len(s)-1], s[len(s)-1]
	if !AllDigits(body) || (last != '-' && (last < '0' || last > '9')) {
		return ErrCharacters
	}
	if last == '-' {
		if Mod11(body) == 10 {
			return nil
		}
		return ErrCheckDigit
	}
	d := int(last - '0')
	if Luhn(body) == d || Mod11(body) == d {
		return nil
	}
	return ErrCheckDigit
}

// Luhn returns the MOD-10 (Luhn) check digit of digits: from the right,
// every other digit starting with the rightmost is doubled (digit sum
// taken), and the check digit brings the sum to a multiple of 10. digits
// must be ASCII digits.
func Luhn(digits string) int {
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

// Mod11 returns the MOD-11 check value (0 to 10) of digits with the
// weights 2,3,4,5,6,7 repeated from the right, as KIDs use it; 10 is
// written '-'. digits must be ASCII digits.
func Mod11(digits string) int {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		w := 2 + (len(digits)-1-i)%6
		sum += int(digits[i]-'0') * w
	}
	return (11 - sum%11) % 11
}

// IBAN checks an IBAN in electronic form (ISO 13616): upper-case letters
// and digits only, a country of the SWIFT IBAN registry with its length,
// check digits 02 to 98, and a mod-97 remainder of 1 over the rearranged
// number. It does not check national check digits inside the BBAN.
func IBAN(s string) error {
	if len(s) < 5 || len(s) > MaxIBANLength {
		return ErrLength
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i < 2 && !isUpper(c), i >= 2 && i < 4 && !isDigit(c), !isUpper(c) && !isDigit(c):
			return ErrCharacters
		}
	}
	want, ok := ibanLengths[s[:2]]
	if !ok {
		return ErrCountry
	}
	if len(s) != want {
		return ErrLength
	}
	if s[2:4] == "00" || s[2:4] == "01" || s[2:4] == "99" {
		return ErrCheckDigit
	}
	if Mod97(s[4:]+s[:4]) != 1 {
		return ErrCheckDigit
	}
	return nil
}

// Mod97 returns the ISO 7064 MOD 97-10 remainder of s, where letters count
// as two digits (A=10 ... Z=35). s must hold only digits and upper-case
// letters; other bytes count as 0.
func Mod97(s string) int {
	rem := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpper(c):
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			rem = (rem * 10) % 97
		}
	}
	return rem
}

// IBANLength returns the IBAN length of a country of the SWIFT IBAN
// registry and whether the country issues IBANs.
func IBANLength(country string) (int, bool) {
	n, ok := ibanLengths[country]
	return n, ok
}

// BIC checks a BIC (ISO 9362): 8 or 11 characters; 4 letters (the
// institution), 2 letters forming an assigned ISO 3166-1 country code, 2
// letters or digits (the location) and optionally 3 letters or digits (the
// branch). Upper case only.
func BIC(s string) error {
	if len(s) != 8 && len(s) != 11 {
		return ErrLength
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i < 6 && !isUpper(c) || i >= 6 && !isUpper(c) && !isDigit(c) {
			return ErrCharacters
		}
	}
	if !IsCountry(s[4:6]) {
		return ErrCountry
	}
	return nil
}

// AllDigits reports whether s is non-empty and all ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
