package payments_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/payments"
)

// mod97OK is an independent statement of what ISO 13616 accepts: upper
// case letters and digits, the check digits after the country moved to
// the end, and the whole read as a number with A=10..Z=35 leaving 1 when
// divided by 97 (computed here digit by digit over the expanded text).
func mod97OK(s string) bool {
	if len(s) < 5 {
		return false
	}
	r := s[4:] + s[:4]
	expanded := make([]byte, 0, 2*len(r))
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c >= '0' && c <= '9':
			expanded = append(expanded, c)
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			expanded = append(expanded, byte('0'+v/10), byte('0'+v%10))
		default:
			return false
		}
	}
	rem := 0
	for _, d := range expanded {
		rem = (rem*10 + int(d-'0')) % 97
	}
	return rem == 1
}

// FuzzCheckers: the checkers never panic, CheckIBAN accepts only what
// mod-97 accepts (and only registry lengths), and every accepted BBAN and
// KID is made of digits.
func FuzzCheckers(f *testing.F) {
	for _, s := range []string{"NO9386011117947", "DE89370400440532013000", "GB29NWBK60161331926819",
		"86011117947", "79927398713", "23-", "DNBANOKK", "DEUTDEFF500", "", "\xff", "NO", "🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if payments.CheckIBAN(s) == nil {
			require.True(t, mod97OK(s), "CheckIBAN accepted %q, which mod-97 refuses", s)
			n, ok := checkdigit.IBANLength(s[:2])
			require.True(t, ok)
			require.Len(t, s, n)
		}
		if payments.CheckBBAN(s) == nil {
			require.Len(t, s, 11)
			require.True(t, checkdigit.AllDigits(s))
		}
		if payments.CheckKID(s) == nil {
			require.True(t, len(s) >= 2 && len(s) <= 25)
			require.True(t, checkdigit.AllDigits(s[:len(s)-1]))
		}
		if payments.CheckBIC(s) == nil {
			require.True(t, len(s) == 8 || len(s) == 11)
			require.True(t, payments.IsCountry(s[4:6]))
		}
	})
}

// FuzzValidate feeds arbitrary JSON into both payment types: Validate
// never panics, and a payment it accepts encodes to JSON.
func FuzzValidate(f *testing.F) {
	ndct, err := json.Marshal(validNDCT())
	require.NoError(f, err)
	sepa, err := json.Marshal(validSEPA())
	require.NoError(f, err)
	f.Add(ndct)
	f.Add(sepa)
	f.Add([]byte(`{"instructedAmount":{"amount":"1.005","currency":"NOK"},"creditorName":"🙂"}`))
	f.Add([]byte(`{"debtorAccount":{"other":{}},"remittanceInformationStructuredArray":[{"referenceType":"kid","reference":"-"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n payments.NorwegianDomestic
		if json.Unmarshal(data, &n) == nil {
			if n.Validate(testNow) == nil {
				_, err := json.Marshal(&n)
				assert.NoError(t, err)
				if bban := n.CreditorAccount.BBAN; len(bban) == 11 && checkdigit.AllDigits(bban) {
					assert.NoError(t, payments.CheckBBAN(bban))
				}
				assert.True(t, n.InstructedAmount.Positive())
			}
		}
		var s payments.SEPA
		if json.Unmarshal(data, &s) == nil {
			if s.Validate(testNow) == nil {
				_, err := json.Marshal(&s)
				assert.NoError(t, err)
				assert.NoError(t, payments.CheckIBAN(s.CreditorAccount.IBAN))
				assert.NoError(t, payments.CheckIBAN(s.DebtorAccount.IBAN))
			}
		}
	})
}
