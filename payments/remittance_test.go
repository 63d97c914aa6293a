package payments_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// docs/interface.md section 2.4 makes only the structured array and the
// unstructured text mutually exclusive. The single structured reference
// goes with either, and both the SDK (its validation on) and the emulator
// create such payments; the array with the unstructured text is refused by
// both, with or without the single reference.
func TestRemittanceCombinationsAgainstEmulator(t *testing.T) {
	t.Parallel()
	single := func() *payments.StructuredReference {
		return &payments.StructuredReference{Reference: "79927398713", ReferenceType: payments.ReferenceTypeKID}
	}
	array := []payments.StructuredReference{{Reference: "INV-2026-118", ReferenceType: "SCOR"}}
	tests := []struct {
		name string
		edit func(*payments.NorwegianDomestic)
		ok   bool
	}{
		{"single structured and unstructured", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationStructured = single()
		}, true},
		{"single structured and array", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructured = single()
			p.RemittanceInformationStructuredArray = array
		}, true},
		{"array and unstructured", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationStructuredArray = array
		}, false},
		{"all three", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationStructured = single()
			p.RemittanceInformationStructuredArray = array
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t)
			ctx := t.Context()
			p := ndct(kariBruk, "12.00")
			tt.edit(p)
			if !tt.ok {
				var ve *client.ValidationError
				_, err := b.svc.CreateNorwegianDomestic(ctx, p, b.pisp()...)
				require.ErrorAs(t, err, &ve, "the SDK refuses it before sending")
				_, err = b.svc.CreateNorwegianDomestic(ctx, p, b.pisp(client.WithoutValidation())...)
				var e *client.Error
				require.ErrorAs(t, err, &e, "the emulator refuses it too")
				assert.Equal(t, http.StatusBadRequest, e.StatusCode)
				assert.Empty(t, b.paymentsHeld())
				return
			}
			require.NoError(t, p.Validate(testNow))
			init, err := b.svc.CreateNorwegianDomestic(ctx, p, b.pisp()...)
			require.NoError(t, err)
			require.NotEmpty(t, init.PaymentID)
			require.Len(t, b.paymentsHeld(), 1)

			// The details echo the remittance as sent.
			b.authorize(t, init.SCARedirect())
			d, err := b.svc.GetAt(ctx, init.Links.Href(client.LinkSelf), b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, p.RemittanceInformationUnstructured, d.RemittanceInformationUnstructured)
			assert.Equal(t, p.RemittanceInformationStructured, d.RemittanceInformationStructured)
			assert.Equal(t, p.RemittanceInformationStructuredArray, d.RemittanceInformationStructuredArray)
		})
	}
}
