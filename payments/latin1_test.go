package payments_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ISO 8859-1 is text to the bank: © and ® ("Acme® AS") pass validation,
// as at the emulator, although Unicode lists them as Extended_Pictographic;
// ™ and the emoji above Latin-1 are refused (TestValidateRefusesPictographs).
func TestValidateAcceptsLatin1(t *testing.T) {
	t.Parallel()
	p := validNDCT()
	p.CreditorName = "Acme® AS"
	p.UltimateDebtor = "Firma© AS"
	p.RemittanceInformationUnstructured = "Faktura ¼ «mars» ±0 ÿ"
	assert.NoError(t, p.Validate(testNow))
	s := validSEPA()
	s.CreditorName = "Acme® AS"
	assert.NoError(t, s.Validate(testNow))
}
