package payments_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
)

// TestDotPaymentIDRefused: "." and ".." are not payment ids; as a path
// segment they would change the path (/v1/payments/<product>/../status
// reads another resource, signed). Status, Get, Cancel, StartAuthorisation
// and Wait refuse them with a *client.ValidationError on paymentId, for
// every payment service, and send nothing.
func TestDotPaymentIDRefused(t *testing.T) {
	t.Parallel()
	c, n := testtpp.CountingClient(t, "Dot PISP", `{"transactionStatus":"ACSC"}`)
	svc, err := payments.New(c)
	require.NoError(t, err)
	ctx := context.Background()
	for _, ps := range []payments.PaymentService{payments.ServiceSingle, payments.ServicePeriodic, payments.ServiceBulk} {
		for _, id := range []string{".", ".."} {
			ref := payments.Ref{Service: ps, Product: payments.ProductSEPA, ID: id}
			for name, call := range map[string]func() error{
				"Status": func() error { _, err := svc.Status(ctx, ref); return err },
				"Get":    func() error { _, err := svc.Get(ctx, ref); return err },
				"Cancel": func() error { _, err := svc.Cancel(ctx, ref); return err },
				"StartAuthorisation": func() error {
					_, err := svc.StartAuthorisation(ctx, ref)
					return err
				},
				"Wait": func() error { _, err := svc.Wait(ctx, ref); return err },
			} {
				err := call()
				var ve *client.ValidationError
				if assert.True(t, errors.As(err, &ve), "%s %s(%q): %v", ps, name, id, err) {
					assert.Equal(t, "paymentId", ve.Field)
				}
				assert.ErrorIs(t, err, client.ErrValidation)
			}
		}
	}
	_, err = svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: ".."})
	assert.ErrorIs(t, err, client.ErrValidation)
	assert.Zero(t, n.Load(), "nothing reaches the bank")

	// Ids that only contain dots, or a dot segment inside them, are one
	// escaped segment and go out.
	for _, id := range []string{"...", "a/..", ".x"} {
		_, err := svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: id})
		require.NoError(t, err, id)
	}
	assert.EqualValues(t, 3, n.Load())
}
