package basket_test

import (
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
)

// TestOverlongIDsRefusedBeforeSending: no id of the interface is longer
// than client.MaxIDLength bytes (the bound the SDK holds the bank's ids
// to), so a basket id or a payment id past it is a caller's mistake:
// refused before anything is sent with a ValidationError naming the
// field, never sent to the bank in a path or a body.
func TestOverlongIDsRefusedBeforeSending(t *testing.T) {
	svc := mockBank(t)
	ctx := t.Context()
	long := "enc!!" + strings.Repeat("A", client.MaxIDLength)

	err := basket.ValidatePaymentIDs([]string{docPayment1, long})
	require.ErrorIs(t, err, client.ErrValidation)
	assert.NotContains(t, err.Error(), long)

	_, err = svc.Create(ctx, []string{docPayment1, long}, basketOpts()...)
	assert.ErrorIs(t, err, client.ErrNotSent)
	assert.ErrorIs(t, err, client.ErrValidation)

	_, err = svc.Get(ctx, long, basketOpts()...)
	assert.ErrorIs(t, err, client.ErrNotSent)
	_, err = svc.Status(ctx, long, basketOpts()...)
	assert.ErrorIs(t, err, client.ErrNotSent)
	err = svc.Delete(ctx, long, basketOpts()...)
	assert.ErrorIs(t, err, client.ErrNotSent)
	_, err = svc.StartAuthorisation(ctx, long, basketOpts()...)
	assert.ErrorIs(t, err, client.ErrNotSent)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "basketId", ve.Field)
	assert.NotContains(t, err.Error(), long)

	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing sent")
}
