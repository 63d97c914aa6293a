package basket_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
)

// Every refusal of a basket call before sending matches
// client.ErrNotSent and client.ErrValidation and names its field, even
// with client.WithoutValidation for an id; nothing reaches the bank.
func TestBasketRefusalsAreNotSentAndValidation(t *testing.T) {
	t.Parallel()
	c, n := testtpp.CountingClient(t, "Basket PISP", `{}`)
	svc, err := basket.New(c)
	require.NoError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		name, field string
		call        func() error
	}{
		{"empty id", "basketId", func() error { _, err := svc.Get(ctx, ""); return err }},
		{"dot id", "basketId", func() error { _, err := svc.Status(ctx, "."); return err }},
		{"dot-dot id without validation", "basketId", func() error { return svc.Delete(ctx, "..", client.WithoutValidation()) }},
		{"empty link", "href", func() error { _, err := svc.GetAt(ctx, ""); return err }},
		{"blank id", "basketId", func() error { _, err := svc.Get(ctx, "  "); return err }},
		{"id with surrounding space", "basketId", func() error { _, err := svc.Status(ctx, " enc!!Qk1-_ZZ="); return err }},
		{"nil context", "ctx", func() error { _, err := svc.Get(nilContext(), "enc!!Qk1-_ZZ="); return err }},
		{"nil context, statuses", "ctx", func() error {
			_, err := svc.PaymentStatuses(nilContext(), []payments.Ref{{Service: payments.ServiceSingle, Product: "sepa-credit-transfers", ID: "enc!!a"}})
			return err
		}},
		{"blank payment id", "paymentIds", func() error { _, err := svc.Create(ctx, []string{"enc!!a", " "}, basketOpts()...); return err }},
		{"empty ref", "refs[0].paymentId", func() error {
			_, err := svc.PaymentStatuses(ctx, []payments.Ref{{Service: payments.ServiceSingle, Product: "sepa-credit-transfers"}})
			return err
		}},
	} {
		err := tc.call()
		assert.ErrorIs(t, err, client.ErrNotSent, tc.name)
		assert.ErrorIs(t, err, client.ErrValidation, tc.name)
		var ve *client.ValidationError
		if assert.True(t, errors.As(err, &ve), "%s: %v", tc.name, err) {
			assert.Equal(t, tc.field, ve.Field, tc.name)
		}
	}
	assert.Zero(t, n.Load())
}

// nilContext is a nil context.Context, the bad argument some tests pass.
func nilContext() context.Context { return nil }
