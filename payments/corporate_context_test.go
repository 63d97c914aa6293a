package payments_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestCreateRefusesInconsistentCorporateContext: in CORPORATE context a
// payment's creation carries both PSU-ID and PSU-Corporate-ID
// (docs/interface.md sections 5.10 and 7: a corporate user without
// PSU-Corporate-ID gets 400), and a PSU-Corporate-ID belongs to the
// CORPORATE context only (section 6). A create whose PSU-Context says
// CORPORATE without a PSU-Corporate-ID, or PRIVATE with one, is refused
// before it is sent, with a *client.ValidationError naming the header.
// Before the fix both went to the bank and came back 400.
func TestCreateRefusesInconsistentCorporateContext(t *testing.T) {
	const corpID = "6376a34c-9693-465e-a0d8-6c6bdd775263"
	for _, tc := range []struct {
		name  string
		psu   []client.RequestOption
		field string // "" when the create is sent
	}{
		{"corporate without corporate id", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}),
			client.WithPSUContext(client.Corporate)}, "PSU-Corporate-ID"},
		{"private with corporate id", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: psuIP}),
			client.WithPSUContext(client.Private)}, "PSU-Context"},
		{"corporate with corporate id", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: psuIP}),
			client.WithPSUContext(client.Corporate)}, ""},
		{"corporate id without context", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: psuIP})}, ""},
		{"private", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}), client.WithPSUContext(client.Private)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			respond(t, http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.CreateNorwegianDomestic(t.Context(), validNDCT(), append([]client.RequestOption{client.WithTPPSessionID(sessionID)}, tc.psu...)...)
			if tc.field == "" {
				require.NoError(t, err)
				assert.Equal(t, 1, httpmock.GetTotalCallCount())
				return
			}
			require.ErrorIs(t, err, client.ErrValidation)
			var ve *client.ValidationError
			require.True(t, errors.As(err, &ve))
			assert.Equal(t, tc.field, ve.Field)
			assert.NotContains(t, err.Error(), corpID)
			assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing sent")
		})
	}
}

// TestPaymentCallsRefuseInconsistentCorporateContext: the rule of
// TestCreateRefusesInconsistentCorporateContext holds for every call on
// a payment (status, details, cancellation, authorisation, by ref or by
// link): a corporate user's request without PSU-Corporate-ID is one the
// bank answers 400 (docs/interface.md section 7). Nothing is sent.
func TestPaymentCallsRefuseInconsistentCorporateContext(t *testing.T) {
	svc := newMockService(t)
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	ro := []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}),
		client.WithPSUContext(client.Corporate)}
	ctx := t.Context()
	for name, call := range map[string]func() error{
		"Status":               func() error { _, err := svc.Status(ctx, ref, ro...); return err },
		"StatusAt":             func() error { _, err := svc.StatusAt(ctx, self+"/status", ro...); return err },
		"Get":                  func() error { _, err := svc.Get(ctx, ref, ro...); return err },
		"Cancel":               func() error { _, err := svc.Cancel(ctx, ref, ro...); return err },
		"CancelAt":             func() error { _, err := svc.CancelAt(ctx, self, ro...); return err },
		"StartAuthorisation":   func() error { _, err := svc.StartAuthorisation(ctx, ref, ro...); return err },
		"StartAuthorisationAt": func() error { _, err := svc.StartAuthorisationAt(ctx, self+"/authorisations", ro...); return err },
	} {
		err := call()
		require.ErrorIs(t, err, client.ErrValidation, name)
		var ve *client.ValidationError
		require.True(t, errors.As(err, &ve), name)
		assert.Equal(t, "PSU-Corporate-ID", ve.Field, name)
	}
	assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing sent")
}
