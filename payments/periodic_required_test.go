package payments_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// A periodic payment's body must carry startDate and frequency (the
// periodic payment of docs/openapi.json requires both; the bank refuses a
// body without them with 400 FORMAT_ERROR), whatever its type: a caller's
// type embedding the payment whose startDate or frequency was left empty
// (omitempty), a map without them, or with null. Before the fix only a
// bare *NorwegianDomestic or *SEPA was refused for lacking them; every
// other body was checked for the members present only and sent.
func TestCreatePeriodicRequiresStartDateAndFrequency(t *testing.T) {
	const path = "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	for _, tc := range []struct {
		name   string
		body   func() any
		fields []string // nil: sent
	}{
		{"valid standing order", func() any { return validStandingOrder() }, nil},
		{"no startDate", func() any {
			o := validStandingOrder()
			o.StartDate = ""
			return o
		}, []string{"startDate"}},
		{"no frequency", func() any {
			o := validStandingOrder()
			o.Frequency = ""
			return o
		}, []string{"frequency"}},
		{"neither, a value", func() any {
			o := validStandingOrder()
			o.StartDate, o.Frequency = "", ""
			return *o
		}, []string{"startDate", "frequency"}},
		{"map with null startDate", func() any {
			return map[string]any{"startDate": nil, "frequency": "Monthly"}
		}, []string{"startDate"}},
		{"map without frequency", func() any {
			return map[string]any{"startDate": "2025-03-17"}
		}, []string{"frequency"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, path, http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, tc.body(), psuPresent()...)
			if tc.fields == nil {
				require.NoError(t, err)
				require.NotNil(t, got.req, "sent")
				return
			}
			require.ErrorIs(t, err, client.ErrValidation)
			require.ErrorIs(t, err, client.ErrNotSent)
			assert.Nil(t, got.req, "nothing sent")
			var refused []string
			for _, ve := range validationErrors(err) {
				refused = append(refused, ve.Field)
			}
			assert.ElementsMatch(t, tc.fields, refused)
		})
	}
}

// The bank emulator refuses a standing order without startDate, sent
// unchecked, with 400 FORMAT_ERROR naming it.
func TestEmulatorRefusesAPeriodicPaymentWithoutStartDate(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	o := &standingOrderAt{NorwegianDomestic: ndct(kariBruk, "10.00"), Frequency: "Monthly"}
	_, err := b.svc.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, o, b.pisp(client.WithoutValidation())...)
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
	require.NotEmpty(t, ce.Messages)
	assert.Equal(t, "FORMAT_ERROR", ce.Messages[0].Code)
	assert.Equal(t, "startDate", ce.Messages[0].Path)
}
