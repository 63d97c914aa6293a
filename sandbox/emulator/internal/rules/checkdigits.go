package rules

// The check-digit oracle: Norwegian account numbers (MOD-11), KIDs
// (MOD-10 or MOD-11), IBANs (ISO 13616 mod-97 and the registry's
// lengths), BICs (ISO 9362) and ISO 3166-1 country codes, as the bank
// checks them (docs/interface.md section 10 "Check digits").
//
// It is written independently of the SDK's checkers (internal/checkdigit)
// on purpose, and must stay so: the emulator is the oracle the SDK's
// validation is tested against, and a bug shared by both would pass every
// test. Do not import internal/checkdigit here, nor copy code between the
// two; a disagreement between them is a bug to find, in one or the other.

// MaxIBANLen is the length of the longest IBAN (ISO 13616).
const MaxIBANLen = 34

// MaxBBANLen is the length of the longest bban the interface takes
// (docs/interface.md section 8).
const MaxBBANLen = 30

// noBBANWeights are the MOD-11 weights of a Norwegian account number over
// its first ten digits (the Norwegian MOD-11 rule).
var noBBANWeights = [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}

// ValidNorwegianBBAN reports whether s is 11 digits whose last digit is the
// MOD-11 check digit of the first ten (remainder 0 gives 0, remainder 1
// makes the number invalid).
func ValidNorwegianBBAN(s string) bool {
	if len(s) != 11 || !AllDigits(s) {
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

// ValidKID reports whether s is a KID: 2 to 25 digits whose last is a
// MOD-10 (Luhn) or MOD-11 check digit; a MOD-11 check value of 10 is
// written '-'.
func ValidKID(s string) bool {
	if len(s) < 2 || len(s) > 25 || !AllDigits(s[:len(s)-1]) {
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

// ValidIBAN reports whether s is an IBAN in electronic form: a country of
// the IBAN registry with its length, check digits that make the mod-97
// remainder 1 (ISO 13616), and for Norway a valid BBAN check digit.
func ValidIBAN(s string) bool {
	if len(s) < 5 || len(s) > MaxIBANLen {
		return false
	}
	if want, ok := ibanLengths[s[:2]]; !ok || want != len(s) {
		return false
	}
	if !AllDigits(s[2:4]) {
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
	return s[:2] != "NO" || ValidNorwegianBBAN(s[4:])
}

// ValidBIC reports whether s is a BIC (ISO 9362): 4 letters of institution,
// 2 letters of country, 2 letters or digits of location, and optionally 3
// letters or digits of branch.
func ValidBIC(s string) bool {
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
	return IsCountry(s[4:6])
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

// IsCountry reports whether s is an assigned ISO 3166-1 alpha-2 code.
func IsCountry(s string) bool {
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

// AllDigits reports whether s is one or more ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
