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

// Every refusal of a payment call before sending is one error matching
// client.ErrNotSent and client.ErrValidation, whose field errors.As
// gives: the client refuses what the service declared (a missing body,
// an empty product or id, a service other than the three, an empty link)
// and bad options. Nothing reaches the bank.
func TestPaymentRefusalsAreNotSentAndValidation(t *testing.T) {
	t.Parallel()
	c, n := testtpp.CountingClient(t, "Refused PISP", `{}`)
	svc, err := payments.New(c)
	require.NoError(t, err)
	ctx := context.Background()
	sepa := payments.ProductSEPA
	for _, tc := range []struct {
		name, field string
		call        func() error
	}{
		{"nil NDCT", "body", func() error { _, err := svc.CreateNorwegianDomestic(ctx, nil); return err }},
		{"nil SEPA", "body", func() error { _, err := svc.CreateSEPA(ctx, nil); return err }},
		{"nil body", "body", func() error { _, err := svc.Create(ctx, sepa, nil); return err }},
		{"empty product", "payment-product", func() error { _, err := svc.Create(ctx, "", map[string]string{}); return err }},
		{"empty id", "paymentId", func() error {
			_, err := svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: sepa, ID: ""})
			return err
		}},
		{"dot id", "paymentId", func() error {
			_, err := svc.Get(ctx, payments.Ref{Service: payments.ServiceSingle, Product: sepa, ID: "."})
			return err
		}},
		{"empty product by id", "payment-product", func() error {
			_, err := svc.Cancel(ctx, payments.Ref{Service: payments.ServiceSingle, Product: "", ID: "p1"})
			return err
		}},
		{"bad service", "payment-service", func() error {
			_, err := svc.Status(ctx, payments.Ref{Service: "instant", Product: sepa, ID: "p1"})
			return err
		}},
		{"empty service", "payment-service", func() error {
			_, err := svc.StartAuthorisation(ctx, payments.Ref{Service: "", Product: sepa, ID: "p1"})
			return err
		}},
		{"empty link", "href", func() error { _, err := svc.StatusAt(ctx, ""); return err }},
		{"wait on a dot id", "paymentId", func() error {
			_, err := svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: sepa, ID: ".."})
			return err
		}},
		{"PSU-ID not a UUID", "header PSU-ID", func() error {
			_, err := svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: sepa, ID: "p1"}, client.WithPSU(client.PSU{ID: "kari"}))
			return err
		}},
		{"redirect URI not https", "header TPP-Redirect-URI", func() error {
			_, err := svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: sepa, ID: "p1"}, client.WithRedirectURI("http://tpp.example/cb"))
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
	assert.Zero(t, n.Load(), "nothing reaches the bank")
}
