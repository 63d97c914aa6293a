package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The check-digit oracle is tested on published examples and hand-worked
// values, not against internal/checkdigit: the two are independent on
// purpose (checkdigits.go).

func TestValidNorwegianBBAN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"86011117947", true},  // the BBAN of the standard NO IBAN example
		{"91026527436", true},  // testdata/platform/payment-ndct-details.json
		{"95312776066", true},  // same file, debtor
		{"12345678903", true},  // weighted sum 195, remainder 8, check 3
		{"86011117948", false}, // wrong check digit
		{"00008000000", false}, // remainder 1: no valid check digit exists
		{"00008000001", false},
		{"8601111794", false},   // 10 digits
		{"860111179470", false}, // 12 digits
		{"8601.11.17947", false},
		{"8601 11 17947", false},
		{"", false},
		{"A6011117947", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ValidNorwegianBBAN(tt.in), tt.in)
	}
}

func TestValidIBAN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"NO9386011117947", true},
		{"DE89370400440532013000", true},
		{"GB29NWBK60161331926819", true},
		{"FR1420041010050500013M02606", true},
		{"SE4550000000058398257466", true},
		{"NO9386011117948", false},         // mod-97 fails
		{"NO8386011117947", false},         // check digits changed
		{"DE8937040044053201300", false},   // one digit short for DE
		{"DE890370400440532013000", false}, // one digit long for DE
		{"NO93 8601 1117 947", false},      // paper format
		{"no9386011117947", false},         // lower case
		{"XX9386011117947", false},         // no such IBAN country
		{"NO", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ValidIBAN(tt.in), tt.in)
	}
	// A Norwegian IBAN whose mod-97 holds but whose BBAN check digit does
	// not: 00008000000 has no valid MOD-11 digit.
	assert.False(t, ValidIBAN(withIBANCheck("NO", "00008000000")))
}

// withIBANCheck computes the IBAN check digits for country and bban.
func withIBANCheck(country, bban string) string {
	for d := 2; d <= 98; d++ {
		s := country + string(rune('0'+d/10)) + string(rune('0'+d%10)) + bban
		rem := 0
		for _, c := range s[4:] + s[:4] {
			if c >= 'A' {
				rem = (rem*100 + int(c-'A') + 10) % 97
			} else {
				rem = (rem*10 + int(c-'0')) % 97
			}
		}
		if rem == 1 {
			return s
		}
	}
	return ""
}

func TestValidKID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"1234567897", true},                   // Luhn
		{"00000018", true},                     // Luhn 8
		{"00000019", true},                     // MOD-11 9
		{"00000017", false},                    // neither
		{"1230", true},                         // Luhn 0
		{"1236", true},                         // MOD-11 6
		{"1235", false},                        // neither
		{"1009-", true},                        // MOD-11 check value 10 written '-'
		{"1012-", true},                        // MOD-11 10
		{"1234-", false},                       // '-' but MOD-11 gives another value
		{"10", false},                          // Luhn of "1" is 8
		{"18", true},                           // shortest: 2 digits
		{"1", false},                           // too short
		{"12345678901234567890123456", false},  // 26 digits
		{"1234567890123456789012" + "1", true}, // 23 digits, Luhn 1
		{"12a0", false},
		{"-", false},
		{"", false},
		{"1-23", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ValidKID(tt.in), tt.in)
	}
}

func TestIsCountry(t *testing.T) {
	t.Parallel()
	codes := strings.Fields(countryCodes)
	assert.Len(t, codes, 249)
	seen := map[string]bool{}
	for _, c := range codes {
		assert.False(t, seen[c], "duplicate %s", c)
		seen[c] = true
		assert.True(t, IsCountry(c), c)
	}
	for _, c := range []string{"XX", "no", "NOR", "N", "", "UK", "EU", "XK", "A D"} {
		assert.False(t, IsCountry(c), c)
	}
	for c := range ibanLengths {
		if c != "XK" { // Kosovo has an IBAN but no ISO 3166-1 code
			assert.True(t, IsCountry(c), "IBAN country %s", c)
		}
	}
}

func TestValidBIC(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"DNBANOKK": true, "DNBANOKKXXX": true, "SPRONO22": true, "NDEANOKK": true,
		"DNBANOK": false, "dnbanokk": false, "DNBAXXKK": false, "DNB4NOKK": false, "": false,
	} {
		assert.Equal(t, want, ValidBIC(in), in)
	}
}
