package basket_test

import (
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
)

// TestCreateRefusesMalformedIDs: a payment id with a control character,
// a terminal escape, a dot segment or bytes that are not UTF-8 is no
// payment's id (the SDK refuses such an id in the bank's answers), so
// Create refuses it before sending with a ValidationError naming its
// position, never the id. Before, it was sent: bytes that are not UTF-8
// as U+FFFD (encoding/json), the id of no payment.
func TestCreateRefusesMalformedIDs(t *testing.T) {
	svc := mockBank(t)
	for _, bad := range []string{"enc!!AB\nCD", "enc!!AB\x1b[2JCD", "enc!!AB\x00CD", "enc!!AB\xffCD", "enc!!AB\x7fCD", ".."} {
		err := basket.ValidatePaymentIDs([]string{docPayment1, bad})
		require.ErrorIs(t, err, client.ErrValidation, "%q", bad)
		assert.Contains(t, err.Error(), "entry 1")
		assert.NotContains(t, err.Error(), "AB")

		_, err = svc.Create(t.Context(), []string{docPayment1, bad}, basketOpts()...)
		assert.ErrorIs(t, err, client.ErrNotSent, "%q", bad)
		assert.ErrorIs(t, err, client.ErrValidation, "%q", bad)
	}
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing sent")
	assert.NoError(t, basket.ValidatePaymentIDs([]string{docPayment1, "enc!!a b"}), "a space inside is taken")
}
