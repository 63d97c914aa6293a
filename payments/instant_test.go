package payments_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// An instant domestic payment (straks) is in NOK only, as the bank (and
// its emulator, docs/emulator.md) takes it: a typed payment in another
// currency sent as one is refused before sending, naming
// instructedAmount.currency. Before the fix it passed the payment's
// Validate and was sent, for the bank to refuse. The same payment in NOK
// is sent, and the NDCT product keeps other currencies.
func TestCreateInstantRefusesAnotherCurrencyThanNOK(t *testing.T) {
	const instant = "/v1/payments/instant-norwegian-domestic-credit-transfers-straks"
	eur := func() *payments.NorwegianDomestic {
		p := validNDCT()
		p.InstructedAmount = money.MustParse("10.00", "EUR")
		return p
	}
	for _, tc := range []struct {
		name    string
		product payments.Product
		path    string
		body    any
		field   string
	}{
		{"instant in NOK", payments.ProductInstantNorwegianDomestic, instant, validNDCT(), ""},
		{"NDCT in EUR", payments.ProductNorwegianDomestic, "/v1/payments/norwegian-domestic-credit-transfers", eur(), ""},
		{"instant in EUR", payments.ProductInstantNorwegianDomestic, instant, eur(), "instructedAmount.currency"},
		{"instant in EUR, a value", payments.ProductInstantNorwegianDomestic, instant, *eur(), "instructedAmount.currency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, tc.path, http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.Create(t.Context(), tc.product, tc.body, psuPresent()...)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, got.req)
				return
			}
			require.ErrorIs(t, err, client.ErrValidation)
			require.ErrorIs(t, err, client.ErrNotSent)
			assert.Nil(t, got.req, "nothing sent")
			assert.Equal(t, []string{tc.field}, fields(t, err))
		})
	}
}
