package checkdigit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNorwegianBBAN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		// 8601 11 17947, the SWIFT registry's Norwegian example: weights
		// 5,4,3,2,7,6,5,4,3,2 over 8601111794 give 40+24+0+2+7+6+5+28+27+8
		// = 147; 147 mod 11 = 4; 11-4 = 7, the last digit.
		{"86011117947", nil},
		{"86011117940", ErrCheckDigit},
		{"8601111794", ErrLength},
		{"8601.11.17947", ErrLength},
		{"8601111794A", ErrCharacters},
		// 0000000000 sums to 0: remainder 0 gives check digit 0.
		{"00000000000", nil},
		// 1000000000: 5 mod 11 = 5, 11-5 = 6.
		{"10000000006", nil},
		// 0000000010: the 9th digit has weight 3; 3 mod 11 = 3; 11-3 = 8.
		{"00000000108", nil},
		// 0000000100: weight 4, remainder 4, 11-4 = 7.
		{"00000001007", nil},
		// 0000000001: weight 2, 11-2 = 9.
		{"00000000019", nil},
		// 3000000000: 15; 15 mod 11 = 4; 11-4 = 7.
		{"30000000007", nil},
		// 2000000000 -> 10; 10 mod 11 = 10 -> 1.
		{"20000000001", nil},
		{"", ErrLength},
	} {
		assert.Equal(t, tc.want, NorwegianBBAN(tc.in), tc.in)
	}
}

func TestBBANCheckDigitRemainderOne(t *testing.T) {
	t.Parallel()
	// 0000000006: 6*2 = 12; 12 mod 11 = 1: no check digit exists.
	_, ok := BBANCheckDigit("0000000006")
	assert.False(t, ok)
	for d := '0'; d <= '9'; d++ {
		assert.Equal(t, ErrCheckDigit, NorwegianBBAN("0000000006"+string(d)))
	}
	_, ok = BBANCheckDigit("12345")
	assert.False(t, ok)
}

func TestKID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"79927398713", nil}, // the classic Luhn example (MOD-10)
		{"1234567897", nil},  // MOD-10 only: Luhn of 123456789 is 7, MOD-11 is 2
		{"1234567892", nil},  // MOD-11 only: 9*2+8*3+7*4+6*5+5*6+4*7+3*2+2*3+1*4 = 174; 174 mod 11 = 9; 11-9 = 2
		{"12345678903", nil}, // both methods give 3
		{"23-", nil},         // 3*2+2*3 = 12; 12 mod 11 = 1; 11-1 = 10, written '-'
		{"24-", ErrCheckDigit},
		{"12345678904", ErrCheckDigit},
		{"1", ErrLength},
		{"12345678901234567890123456", ErrLength},
		{"12 34", ErrCharacters},
		{"-1", ErrCharacters},
		{"1234A", ErrCharacters},
	} {
		assert.Equal(t, tc.want, KID(tc.in), tc.in)
	}
}

func TestIBAN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"NO9386011117947", nil},
		{"DE89370400440532013000", nil},
		{"GB29NWBK60161331926819", nil},
		{"NO9386011117948", ErrCheckDigit},
		{"NO938601111794", ErrLength},
		{"XX9386011117947", ErrCountry},
		{"no9386011117947", ErrCharacters},
		{"NO93 8601 1117 947", ErrCharacters},
		{"NOAB86011117947", ErrCharacters},
		{"NO", ErrLength},
		{"NO01", ErrLength},
	} {
		assert.Equal(t, tc.want, IBAN(tc.in), tc.in)
	}
	// 02 and 99 give the same remainder; ISO 7064 writes only 02 to 98.
	assert.Equal(t, 1, Mod97("86011117947NO93"))
	n, ok := IBANLength("NO")
	assert.True(t, ok)
	assert.Equal(t, 15, n)
}

func TestBIC(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"DNBANOKK", nil},
		{"DEUTDEFF500", nil},
		{"NWBKGB2L", nil},
		{"DNBANOK", ErrLength},
		{"DNBAXXKK", ErrCountry},
		{"dnbanokk", ErrCharacters},
		{"DNB1NOKK", ErrCharacters},
		{"DNBANOKK-01", ErrCharacters},
	} {
		assert.Equal(t, tc.want, BIC(tc.in), tc.in)
	}
}

func TestCountries(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 249, Countries())
	for _, c := range []string{"NO", "SE", "DK", "DE", "GB", "AX", "SJ", "BV", "ZW"} {
		assert.True(t, IsCountry(c), c)
	}
	for _, c := range []string{"", "N", "no", "XX", "UK", "EU", "NOR"} {
		assert.False(t, IsCountry(c), c)
	}
	// Every IBAN country is an assigned country, except Kosovo (XK, a
	// user-assigned code the registry uses).
	for c := range ibanLengths {
		if c != "XK" {
			assert.True(t, IsCountry(c), c)
		}
	}
}

func TestLuhnMod11(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 3, Luhn("7992739871"))
	assert.Equal(t, 2, Mod11("123456789"))
	assert.Equal(t, 10, Mod11("23"))
}
