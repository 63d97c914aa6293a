package payments_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// standingOrderValue is a standing order written as the package's doc
// test writes one: the typed payment embedded by value, the type handed
// to CreatePeriodic by value. Its method set holds no Validate: the
// payment's Validate has a pointer receiver.
type standingOrderValue struct {
	payments.NorwegianDomestic
	StartDate string `json:"startDate"`
	Frequency string `json:"frequency"`
}

// crossBorderValue is a cross-border payment written with the SEPA
// type's fields embedded by value.
type crossBorderValue struct {
	payments.SEPA
	ChargeBearer string `json:"chargeBearer,omitempty"`
}

// A body handed by value whose pointer has a Validate method (a type
// embedding *NorwegianDomestic or *SEPA's value, or any type with a
// pointer-receiver Validate) is validated as the same body handed by
// pointer. Before the fix only NorwegianDomestic and SEPA values were:
// a standing order embedding the payment by value, with a wrong MOD-11
// digit or a creditorName over 70 characters (docs/interface.md sections
// 2.3a, 2.4), was sent for the bank to refuse.
func TestCreateValidatesABodyGivenByValueLikeByPointer(t *testing.T) {
	const (
		periodicPath    = "/v1/periodic-payments/norwegian-domestic-credit-transfers"
		crossBorderPath = "/v1/payments/cross-border-credit-transfers"
	)
	order := func(edit func(p *payments.NorwegianDomestic)) standingOrderValue {
		o := standingOrderValue{NorwegianDomestic: *validNDCT(), StartDate: "2025-03-17", Frequency: "Monthly"}
		edit(&o.NorwegianDomestic)
		return o
	}
	for _, tc := range []struct {
		name   string
		create func(*payments.Service, *testing.T) error
		path   string
		fields []string // nil: sent
	}{
		{"valid standing order by value", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, order(func(*payments.NorwegianDomestic) {}), psuPresent()...)
			return err
		}, periodicPath, nil},
		{"wrong check digit by value", func(s *payments.Service, t *testing.T) error {
			o := order(func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "91026527437" })
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, o, psuPresent()...)
			return err
		}, periodicPath, []string{"creditorAccount.bban"}},
		{"wrong check digit by pointer", func(s *payments.Service, t *testing.T) error {
			o := order(func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "91026527437" })
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, &o, psuPresent()...)
			return err
		}, periodicPath, []string{"creditorAccount.bban"}},
		{"long creditorName by value", func(s *payments.Service, t *testing.T) error {
			o := order(func(p *payments.NorwegianDomestic) { p.CreditorName = runes(71) })
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, o, psuPresent()...)
			return err
		}, periodicPath, []string{"creditorName"}},
		{"cross-border with a bad IBAN by value", func(s *payments.Service, t *testing.T) error {
			b := crossBorderValue{SEPA: *validSEPA(), ChargeBearer: "SHAR"}
			b.CreditorAccount.IBAN = "DE89370400440532013001"
			_, err := s.Create(t.Context(), payments.ProductCrossBorder, b, psuPresent()...)
			return err
		}, crossBorderPath, []string{"creditorAccount.iban"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, tc.path, http.StatusCreated, "payment-ndct-create-201.json")
			err := tc.create(svc, t)
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
