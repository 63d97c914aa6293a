package payments_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestValidateRefusesControlCharacters: a control character (a line
// break, a tab, NUL, the ESC of a terminal sequence, DEL, the C1 CSI) in
// any text of a payment is refused before sending, naming the field and
// the character's code point and quoting nothing of the text. They were
// sent as written: only emoji were refused, so a creditor name with a
// stray line break became the name of a payment.
func TestValidateRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	const secret = "Ola Nordmann"
	for _, tc := range []struct {
		name  string
		edit  func(p *payments.NorwegianDomestic)
		field string
	}{
		{"creditorName with a line break", func(p *payments.NorwegianDomestic) { p.CreditorName = secret + "\nforged" }, "creditorName"},
		{"creditorName with NUL", func(p *payments.NorwegianDomestic) { p.CreditorName = secret + "\x00" }, "creditorName"},
		{"ultimateDebtor with a tab", func(p *payments.NorwegianDomestic) { p.UltimateDebtor = secret + "\t" }, "ultimateDebtor"},
		{"remittance with ESC", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = secret + "\x1b[31m" }, "remittanceInformationUnstructured"},
		{"street with C1 CSI", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Street = secret + "\u009b" }, "creditorAddress.street"},
		{"city with DEL", func(p *payments.NorwegianDomestic) { p.CreditorAddress.City = secret + "\x7f" }, "creditorAddress.city"},
		{"creditor bban with a line break", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "1234\n5678" }, "creditorAccount.bban"},
		{"card identification with a line break", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Currency: "NOK",
				Other: &payments.OtherAccount{Identification: "12\n34", SchemeNameProprietary: payments.SchemeCreditCardAccount}}
		}, "debtorAccount.other.identification"},
		{"structured reference with a CR", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "INV\r42"}}
		}, "remittanceInformationStructuredArray[0].reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := validNDCT()
			tc.edit(p)
			err := p.Validate(testNow)
			assert.Equal(t, []string{tc.field}, fields(t, err))
			if err != nil {
				assert.NotContains(t, err.Error(), secret, "the text is not quoted")
				assert.Contains(t, err.Error(), "control character")
			}
		})
	}

	t.Run("SEPA", func(t *testing.T) {
		t.Parallel()
		p := validSEPA()
		p.EndToEndIdentification = "E2E\n1"
		p.CreditorName = secret + "\x1b]"
		assert.Equal(t, []string{"endToEndIdentification", "creditorName"}, fields(t, p.Validate(testNow)))
	})

	t.Run("valid: printable Latin-1 and Norwegian letters", func(t *testing.T) {
		t.Parallel()
		p := validNDCT()
		p.CreditorName = "Åse Ødegård-Æsøy « » ½"
		p.RemittanceInformationUnstructured = "Faktura nr. 42 – påske"
		assert.NoError(t, p.Validate(testNow))
	})
}

// A body of the caller's own (a map: a cross-border, bulk or periodic
// payment the SDK has no type for) holding a control character in any
// string is refused before sending, as a typed payment's text is,
// naming the member and the code point. It was checked for emoji only,
// and sent.
func TestCreateRefusesAControlCharacterInABodyOfItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  func() map[string]any
		field string // "" means sent
	}{
		{"plain text", func() map[string]any {
			return anyBodyWith(t, kariBruk, "remittanceInformationUnstructured", "Hyttetur påske")
		}, ""},
		{"line break in remittance", func() map[string]any {
			return anyBodyWith(t, kariBruk, "remittanceInformationUnstructured", "Hyttetur\npåske")
		}, "remittanceInformationUnstructured"},
		{"ESC in an address", func() map[string]any {
			return anyBodyWith(t, kariBruk, "creditorAddress", map[string]any{"street": "Gate 1\x1b[2J", "country": "NO"})
		}, "creditorAddress.street"},
		{"DEL in creditorName, ASCII otherwise", func() map[string]any {
			return anyBodyWith(t, kariBruk, "creditorName", "Ola\x7f")
		}, "creditorName"},
		{"C1 before an emoji", func() map[string]any {
			return anyBodyWith(t, kariBruk, "creditorName", "Ola\u009b \U0001F355")
		}, "creditorName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, "/v1/payments/cross-border-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.Create(t.Context(), payments.ProductCrossBorder, tc.body(), psuPresent()...)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, got.req, "sent")
				return
			}
			requireRefusedUnsent(t, got, err, tc.field)
			assert.Contains(t, err.Error(), "control character")
		})
	}
}

// TestValidateRefusesBidiControls: a bidirectional embedding, override
// or isolate (U+202A to U+202E, U+2066 to U+2069) in a payment's text is
// refused before sending, in a typed payment and in a body of the
// caller's own: invisible, it reorders the text as shown, so that the
// creditor name the PSU reads on the bank's SCA page is not the one
// sent. They were sent as written. The direction marks U+200E and U+200F
// are taken.
func TestValidateRefusesBidiControls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(p *payments.NorwegianDomestic)
		field string // "" means valid
	}{
		{"RLO in creditorName", func(p *payments.NorwegianDomestic) { p.CreditorName = "Ola \u202eNAMSDRON" }, "creditorName"},
		{"LRE in ultimateDebtor", func(p *payments.NorwegianDomestic) { p.UltimateDebtor = "\u202aKari" }, "ultimateDebtor"},
		{"PDI in remittance", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = "Faktura \u2069 42" }, "remittanceInformationUnstructured"},
		{"RLI in a reference", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "\u2067INV42"}}
		}, "remittanceInformationStructuredArray[0].reference"},
		{"valid: the marks LRM and RLM", func(p *payments.NorwegianDomestic) { p.CreditorName = "Ola\u200e Nordmann\u200f" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := validNDCT()
			tc.edit(p)
			err := p.Validate(testNow)
			if tc.field == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, []string{tc.field}, fields(t, err))
			if err != nil {
				assert.Contains(t, err.Error(), "bidirectional control character")
			}
		})
	}

	t.Run("a body of the caller's own", func(t *testing.T) {
		svc := newMockService(t)
		got := respond(t, http.MethodPost, "/v1/payments/cross-border-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
		_, err := svc.Create(t.Context(), payments.ProductCrossBorder, anyBodyWith(t, kariBruk, "creditorName", "Ola \u202eNAMSDRON"), psuPresent()...)
		requireRefusedUnsent(t, got, err, "creditorName")
	})
}

// requireRefusedUnsent asserts that err, a create's error, is a
// validation error naming field alone, and that nothing reached the bank
// (got, the create's mock answer).
func requireRefusedUnsent(t *testing.T, got *captured, err error, field string) {
	t.Helper()
	require.ErrorIs(t, err, client.ErrValidation)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.Nil(t, got.req, "nothing sent")
	assert.Equal(t, []string{field}, fields(t, err))
}
