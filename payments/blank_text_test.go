package payments_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/payments"
)

// TestValidateRefusesBlankText: a required text, or one the interface
// holds to at least one character when it is sent (the unstructured
// remittance, a structured reference's members), made of spaces only is
// refused before sending as it were empty. It was sent: a creditorName
// of three spaces, a reference of one.
func TestValidateRefusesBlankText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(p *payments.NorwegianDomestic)
		field string
	}{
		{"creditorName of spaces", func(p *payments.NorwegianDomestic) { p.CreditorName = "   " }, "creditorName"},
		{"creditorName of no-break spaces", func(p *payments.NorwegianDomestic) { p.CreditorName = "\u00a0\u2003" }, "creditorName"},
		{"remittance of a space", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = " " }, "remittanceInformationUnstructured"},
		{"reference of a space", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: " "}
		}, "remittanceInformationStructured.reference"},
		{"referenceType of spaces", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "INV 42", ReferenceType: "  "}}
		}, "remittanceInformationStructuredArray[0].referenceType"},
		{"referenceIssuer of spaces", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "INV 42", ReferenceIssuer: " "}}
		}, "remittanceInformationStructuredArray[0].referenceIssuer"},
		{"card identification of spaces", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Currency: "NOK",
				Other: &payments.OtherAccount{Identification: "  ", SchemeNameProprietary: payments.SchemeCreditCardAccount}}
		}, "debtorAccount.other.identification"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := validNDCT()
			tc.edit(p)
			assert.Equal(t, []string{tc.field}, fields(t, p.Validate(testNow)))
		})
	}

	t.Run("SEPA", func(t *testing.T) {
		t.Parallel()
		p := validSEPA()
		p.CreditorName = " "
		p.RemittanceInformationUnstructured = "  "
		assert.Equal(t, []string{"creditorName", "remittanceInformationUnstructured"}, fields(t, p.Validate(testNow)))
	})

	t.Run("valid: spaces inside and around a text", func(t *testing.T) {
		t.Parallel()
		p := validNDCT()
		p.CreditorName = " Ola  Nordmann "
		p.RemittanceInformationUnstructured = " Faktura 42"
		assert.NoError(t, p.Validate(testNow))
	})
}
