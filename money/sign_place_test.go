package money

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRefusesSignAfterDecimalPoint checks that Parse accepts a sign
// only in front of the number. Amounts are exact decimals and bad input
// gets a typed error (docs/interface.md sections 2.1 and 8: an amount is a
// decimal number with the currency's minor units). Before the fix Parse
// handed ".-5" and ".+5" to shopspring's NewFromString, which drops the
// '.' and parses "-5" / "+5" with the exponent of the fraction: ".-5" NOK
// became -0.05 NOK and ".+5" NOK became 0.05 NOK, a valid amount that a
// payment would send, with no error.
func TestParseRefusesSignAfterDecimalPoint(t *testing.T) {
	t.Parallel()
	for _, s := range []string{".-5", ".+5", "-.-5", "+.+5", ".-50", "1.-5", "0.+05"} {
		a, err := Parse(s, "NOK")
		assert.ErrorIs(t, err, ErrInvalidAmount, "%q was read as %s", s, a)
	}
	// A sign in front is still read.
	assert.Equal(t, "-0.50 NOK", MustParse("-.5", "NOK").String())
	assert.Equal(t, "0.50 NOK", MustParse("+.5", "NOK").String())
}

// TestDecodeRefusesSignAfterDecimalPoint checks the same for an amount of
// a bank document: {"amount":".-5"} is not a decimal number and becomes
// an unreadable amount (docs/interface.md section 2.1), not -0.05 NOK.
// Before the fix it decoded as a readable -0.05 NOK.
func TestDecodeRefusesSignAfterDecimalPoint(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`".-5"`, `".+5"`, `"1.-5"`, `"1e-2.-5"`} {
		var a Amount
		require.NoError(t, json.Unmarshal([]byte(`{"amount":`+s+`,"currency":"NOK"}`), &a))
		assert.ErrorIs(t, a.Err(), ErrUnreadable, "%s was read as %s", s, a)
	}
	// Signs in front and in the exponent are still read.
	for _, s := range []string{`"-.5"`, `"+1.5"`, `"15e-1"`, `"1.5E+0"`, `-0.5`} {
		var a Amount
		require.NoError(t, json.Unmarshal([]byte(`{"amount":`+s+`,"currency":"NOK"}`), &a))
		assert.NoError(t, a.Err(), s)
	}
}
