package payments_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/payments"
)

// Real published examples. BBAN 8601 11 17947 is the Norwegian example of
// the SWIFT IBAN registry: weights 5,4,3,2,7,6,5,4,3,2 over 8601111794
// give 147; 147 mod 11 = 4; 11-4 = 7. The IBANs are the registry's
// examples for their countries.
func TestNormalizeBBAN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"8601 11 17947":  "86011117947",
		"8601.11.17947":  "86011117947",
		" 86011117947 ":  "86011117947",
		"86011117947":    "86011117947",
		"8601 11 1794":   "8601 11 1794",   // 10 digits: left for validation to report
		"8601 11 179470": "8601 11 179470", // 12 digits
		"8601-11-17947":  "8601-11-17947",  // other separators are not the printed form
		"NO93 8601 1117": "NO93 8601 1117",
		"":               "",
	} {
		assert.Equal(t, want, payments.NormalizeBBAN(in), in)
	}
	require.NoError(t, payments.CheckBBAN(payments.NormalizeBBAN("8601 11 17947")))
	assert.ErrorIs(t, payments.CheckBBAN("8601 11 17947"), payments.ErrInvalidIdentifier)
}

func TestCheckBBAN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"86011117947", nil},
		{"95312776066", nil}, // the emulator's first account of Kari
		{"12345678903", nil}, // 5+8+9+8+35+36+35+32+27+0 = 195; 195 mod 11 = 8; 11-8 = 3
		{"12345678904", payments.ErrCheckDigit},
		{"86011117948", payments.ErrCheckDigit},
		{"8601111794", payments.ErrLength},
		{"860111179470", payments.ErrLength},
		{"8601.111794", payments.ErrCharacters},
		{"", payments.ErrLength},
	} {
		err := payments.CheckBBAN(tc.in)
		if tc.want == nil {
			assert.NoError(t, err, tc.in)
			continue
		}
		require.ErrorIs(t, err, tc.want, tc.in)
		assert.ErrorIs(t, err, payments.ErrInvalidIdentifier)
		var ce *payments.CheckError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "BBAN", ce.Kind)
		if tc.in != "" {
			assert.NotContains(t, err.Error(), tc.in, "the value is not quoted")
		}
	}
}

func TestCheckIBAN(t *testing.T) {
	t.Parallel()
	valid := []string{
		"NO9386011117947", "DE89370400440532013000", "GB29NWBK60161331926819",
		"FR1420041010050500013M02606", "SE4550000000058398257466", "DK5000400440116243",
		"FI2112345600000785", "NL91ABNA0417164300", "BE68539007547034",
		"CH9300762011623852957", "AT611904300234573201", "ES9121000418450200051332",
		"IT60X0542811101000000123456", "PL61109010140000071219812874",
		"MT84MALT011000012345MTLCAST001S", "LC55HEMM000100010012001200023015",
		"RU0304452522540817810538091310419",
	}
	for _, s := range valid {
		assert.NoError(t, payments.CheckIBAN(s), s)
		n, ok := checkdigit.IBANLength(s[:2])
		assert.True(t, ok)
		assert.Len(t, s, n, "registry length of %s", s[:2])
	}
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"NO9386011117946", payments.ErrCheckDigit},
		{"DE89370400440532013001", payments.ErrCheckDigit},
		{"GB29NWBK6016133192681", payments.ErrLength},
		{"NO93860111179470", payments.ErrLength},
		{"US64SVBKUS6S3300958879", payments.ErrCountry}, // no IBAN in the US
		{"gb29nwbk60161331926819", payments.ErrCharacters},
		{"GB29 NWBK 6016 1331 9268 19", payments.ErrCharacters},
		{strings.Repeat("N", 35), payments.ErrLength},
	} {
		assert.ErrorIs(t, payments.CheckIBAN(tc.in), tc.want, tc.in)
	}
}

func TestCheckKID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"79927398713", // MOD-10: the classic Luhn example
		"1234567897",  // MOD-10 only
		"1234567892",  // MOD-11 only (174 mod 11 = 9; 11-9 = 2)
		"23-",         // MOD-11 check value 10 written '-'
		"0000000000000000000000000",
	} {
		assert.NoError(t, payments.CheckKID(s), s)
	}
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"79927398710", payments.ErrCheckDigit},
		{"1234567891", payments.ErrCheckDigit},
		{"5", payments.ErrLength},
		{strings.Repeat("1", 26), payments.ErrLength},
		{"1234 5678", payments.ErrCharacters},
		{"12-3", payments.ErrCharacters},
	} {
		assert.ErrorIs(t, payments.CheckKID(tc.in), tc.want, tc.in)
	}
}

func TestCheckBIC(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"DNBANOKK", "DNBANOKKXXX", "DEUTDEFF", "DEUTDEFF500", "NWBKGB2L", "SPRONO22"} {
		assert.NoError(t, payments.CheckBIC(s), s)
	}
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"DNBANOK", payments.ErrLength},
		{"DNBANOKKXX", payments.ErrLength},
		{"DNBAZZKK", payments.ErrCountry},
		{"dnbanokk", payments.ErrCharacters},
		{"DNB4NOKK", payments.ErrCharacters},
		{"DNBANOK_", payments.ErrCharacters},
	} {
		assert.ErrorIs(t, payments.CheckBIC(tc.in), tc.want, tc.in)
	}
}

func TestIsCountry(t *testing.T) {
	t.Parallel()
	assert.True(t, payments.IsCountry("NO"))
	assert.True(t, payments.IsCountry("SJ"))
	assert.False(t, payments.IsCountry("EU"))
	assert.False(t, payments.IsCountry("nO"))
}

func TestTransactionStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s                                         payments.TransactionStatus
		final, accepted, rejected, pending, known bool
	}{
		{payments.StatusRCVD, false, false, false, true, true},
		{payments.StatusPDNG, false, false, false, true, true},
		{payments.StatusACTC, false, true, false, true, true},
		{payments.StatusACCP, false, true, false, true, true},
		{payments.StatusACSP, false, true, false, true, true},
		{payments.StatusACWC, false, true, false, true, true},
		{payments.StatusACWP, false, true, false, true, true},
		{payments.StatusACFC, false, true, false, true, true},
		{payments.StatusACSC, true, true, false, false, true},
		{payments.StatusACCC, true, true, false, false, true},
		{payments.StatusRJCT, true, false, true, false, true},
		{payments.StatusCANC, true, false, false, false, true},
		{payments.StatusPATC, false, false, false, true, true},
		{payments.StatusPART, false, false, false, true, true},
		{"XXXX", false, false, false, false, false},
	} {
		assert.Equal(t, tc.final, tc.s.IsFinal(), "final %s", tc.s)
		assert.Equal(t, tc.accepted, tc.s.IsAccepted(), "accepted %s", tc.s)
		assert.Equal(t, tc.rejected, tc.s.IsRejected(), "rejected %s", tc.s)
		assert.Equal(t, tc.pending, tc.s.IsPending(), "pending %s", tc.s)
		assert.Equal(t, tc.known, tc.s.IsKnown(), "known %s", tc.s)
	}
	assert.True(t, payments.StatusCANC.IsCancelled())
	var r *payments.StatusResponse
	assert.False(t, r.FundsUnavailable())
	assert.False(t, (&payments.StatusResponse{FundsAvailable: boolPtr(true)}).FundsUnavailable())
	var i *payments.Initiation
	assert.Empty(t, i.SCARedirect())
}
