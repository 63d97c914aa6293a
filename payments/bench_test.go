package payments_test

import (
	"testing"
)

// BenchmarkValidateNorwegianDomestic measures validating a typical NDCT
// payment with a KID.
func BenchmarkValidateNorwegianDomestic(b *testing.B) {
	p := validNDCT()
	p.RemittanceInformationUnstructured = ""
	p.RemittanceInformationStructuredArray = kidRef("79927398713")
	p.PurposeCode = "SUPP"
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Validate(testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateSEPA measures validating a SEPA payment.
func BenchmarkValidateSEPA(b *testing.B) {
	p := validSEPA()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Validate(testNow); err != nil {
			b.Fatal(err)
		}
	}
}
