package payments_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// foreignBBAN is an account number of a foreign bank written as 11
// digits, whose last digit is not a Norwegian MOD-11 check digit: a
// cross-border creditor's account is not Norwegian.
const foreignBBAN = "12345678901"

// crossBorderBodies are typed payments sent as cross-border credit
// transfers, with the fields the SDK must refuse (nil: sent). The
// cross-border rules are those of the bank emulator
// (sandbox/emulator/internal/paymentrules): a creditorAddress is
// required, the creditor's account is an iban or a bban of any country
// (no Norwegian MOD-11), the debtor's an iban or a Norwegian bban (a
// card account cannot pay abroad), and creditorAgent is required only
// for a domestic payment to a currency account (docs/interface.md
// section 2.4).
func crossBorderBodies(debtorBBAN string) []struct {
	name   string
	body   any
	fields []string
} {
	sepaWithoutAddress := validSEPA()
	sepaWithoutAddress.CreditorAddress = nil
	sepaWithoutAddress.DebtorAccount.IBAN = ibanFor(debtorBBAN)

	sepa := validSEPA()
	sepa.DebtorAccount.IBAN = ibanFor(debtorBBAN)

	cardDebtor := ndct(debtorBBAN, "10.00")
	cardDebtor.DebtorAccount = payments.CardDebtor("card-1", "NOK")

	foreign := ndct(debtorBBAN, "10.00")
	foreign.CreditorAccount = payments.AccountReference{BBAN: foreignBBAN, Currency: "USD"}
	foreign.CreditorAddress = &payments.Address{Country: "US"}
	foreign.InstructedAmount = money.MustParse("10.00", "USD")

	return []struct {
		name   string
		body   any
		fields []string
	}{
		{"SEPA with address", sepa, nil},
		{"NDCT", ndct(debtorBBAN, "10.00"), nil},
		{"NDCT to a foreign 11-digit bban in USD without agent", foreign, nil},
		{"SEPA without address", sepaWithoutAddress, []string{"creditorAddress"}},
		{"NDCT from a card account", cardDebtor, []string{"debtorAccount"}},
	}
}

// A typed payment sent with Create as a cross-border credit transfer is
// held to that product's forms, as a domestic or SEPA one is. Before the
// fix a SEPA payment without creditorAddress and a domestic one from a
// card account were sent (the bank answers 400 FORMAT_ERROR), while a
// domestic one to a foreign 11-digit account number, or to a USD account
// without creditorAgent, was refused though the bank takes it.
func TestCreateHoldsATypedPaymentToCrossBorderForms(t *testing.T) {
	const path = "/v1/payments/cross-border-credit-transfers"
	for _, tc := range crossBorderBodies(kariBruk) {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, path, http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.Create(t.Context(), payments.ProductCrossBorder, tc.body, psuPresent()...)
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

// The bank emulator agrees: sent without the SDK's validation, the
// bodies the SDK refuses are 400 FORMAT_ERROR at the same field, and the
// others are created.
func TestEmulatorCrossBorderFormsAgreeWithTheSDK(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	for _, tc := range crossBorderBodies(kariBruk) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.svc.Create(t.Context(), payments.ProductCrossBorder, tc.body, b.pisp(client.WithoutValidation())...)
			if tc.fields == nil {
				require.NoError(t, err)
				return
			}
			var ce *client.Error
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
			require.NotEmpty(t, ce.Messages)
			assert.Equal(t, "FORMAT_ERROR", ce.Messages[0].Code)
			assert.Equal(t, tc.fields[0], ce.Messages[0].Path)
		})
	}
}
