package payments_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// reads are the four status and details reads of a payment, by product
// and id or by the links of its creation answer.
func reads(b *bank, init *payments.Initiation) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"Status": func(ctx context.Context) error {
			_, err := b.svc.Status(ctx, init.Ref(), b.pisp()...)
			return err
		},
		"StatusAt": func(ctx context.Context) error {
			_, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
			return err
		},
		"Get": func(ctx context.Context) error {
			_, err := b.svc.Get(ctx, init.Ref(), b.pisp()...)
			return err
		},
		"GetAt": func(ctx context.Context) error {
			_, err := b.svc.GetAt(ctx, init.Links.Href(client.LinkSelf), b.pisp()...)
			return err
		},
	}
}

// TestEmulatorNotYetReadable: the emulator, like the bank (known issue of
// docs/interface.md section 4.2), answers 404 to every read of an NDCT
// the PSU has not approved; the SDK says so with ErrNotYetReadable, and
// the same reads succeed after the SCA.
func TestEmulatorNotYetReadable(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "75.00"), b.pisp()...)
	require.NoError(t, err)

	for name, read := range reads(b, init) {
		err := read(ctx)
		require.ErrorIs(t, err, payments.ErrNotYetReadable, name)
		var nyr *payments.NotYetReadableError
		require.ErrorAs(t, err, &nyr, name)
		assert.Equal(t, payments.ProductNorwegianDomestic, nyr.Product, name)
		var ce *client.Error
		require.ErrorAs(t, err, &ce, name)
		assert.Equal(t, http.StatusNotFound, ce.StatusCode, name)
		assert.Contains(t, err.Error(), "known issue", name)
	}

	b.authorize(t, init.SCARedirect())
	for name, read := range reads(b, init) {
		assert.NoError(t, read(ctx), name)
	}
}

// TestEmulatorOtherNotFoundIsNotNotYetReadable: a SEPA payment is readable
// before approval, and a 404 on another product is a plain not-found.
func TestEmulatorOtherNotFoundIsNotNotYetReadable(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateSEPA(ctx, &payments.SEPA{
		InstructedAmount: money.MustParse("10.00", "EUR"),
		CreditorName:     "Muster GmbH",
		CreditorAccount:  payments.AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"},
		DebtorAccount:    payments.AccountReference{IBAN: ibanFor(kariBruk), Currency: "NOK"},
	}, b.pisp()...)
	require.NoError(t, err)
	for name, read := range reads(b, init) {
		assert.NoError(t, read(ctx), name)
	}

	_, err = b.svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID + "x"}, b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotFound)
	assert.NotErrorIs(t, err, payments.ErrNotYetReadable)
}

// TestNotYetReadableByPath: the product is read from the path or href of
// the read, relative or absolute; only a 404 on an NDCT is wrapped.
func TestNotYetReadableByPath(t *testing.T) {
	const ndctPath = "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	const sepaPath = "/v1/payments/sepa-credit-transfers/" + sepaID
	tests := []struct {
		name   string
		path   string // registered under baseURL
		status int
		read   func(context.Context, *payments.Service) error
		want   bool
	}{
		{"absolute status href", ndctPath + "/status", 404, func(ctx context.Context, s *payments.Service) error {
			_, err := s.StatusAt(ctx, baseURL+ndctPath+"/status", psuPresent()...)
			return err
		}, true},
		{"relative self href", ndctPath, 404, func(ctx context.Context, s *payments.Service) error {
			_, err := s.GetAt(ctx, ndctPath, psuPresent()...)
			return err
		}, true},
		{"sepa status", sepaPath + "/status", 404, func(ctx context.Context, s *payments.Service) error {
			_, err := s.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: sepaID}, psuPresent()...)
			return err
		}, false},
		{"ndct 403", ndctPath + "/status", 403, func(ctx context.Context, s *payments.Service) error {
			_, err := s.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}, psuPresent()...)
			return err
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, baseURL+tt.path,
				httpmock.NewStringResponder(tt.status, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`))
			err := tt.read(t.Context(), svc)
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.status, ce.StatusCode)
			assert.Equal(t, tt.want, errors.Is(err, payments.ErrNotYetReadable))
		})
	}
}
