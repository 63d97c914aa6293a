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

// A typed payment sent with Create under a product is held to the
// account forms that product requires (docs/interface.md sections 2.3a,
// 2.4, 2.5): a domestic payment's creditorAccount needs a bban and its
// creditorAddress is required, its debtorAccount a bban (or a card
// reference, which a SEPA type cannot carry); a SEPA payment's creditor
// and debtor accounts need an iban. Before the fix the body was checked
// only against its own type's rules: a SEPA payment (ibans only) sent
// as a norwegian-domestic-credit-transfer, or a domestic one (bbans only)
// sent as a sepa-credit-transfer, passed and was sent, for the bank to
// refuse with 400 FORMAT_ERROR. A typed payment that carries what the
// product needs as well as what its type needs is sent.
func TestCreateHoldsATypedPaymentToTheProductsAccountForms(t *testing.T) {
	const (
		ndctPath    = "/v1/payments/norwegian-domestic-credit-transfers"
		sepaPath    = "/v1/payments/sepa-credit-transfers"
		instantPath = "/v1/payments/instant-norwegian-domestic-credit-transfers-straks"
	)
	sepaWithoutAddress := func() *payments.SEPA {
		p := validSEPA()
		p.CreditorAddress = nil
		return p
	}
	sepaWithBBANs := func() *payments.SEPA {
		p := validSEPA()
		p.CreditorAccount.BBAN = "91026527436"
		p.DebtorAccount.BBAN = "86011117947"
		return p
	}
	ndctWithIBANs := func() *payments.NorwegianDomestic {
		p := validNDCT()
		p.CreditorAccount.IBAN = ibanFor(p.CreditorAccount.BBAN)
		p.DebtorAccount.IBAN = ibanFor(p.DebtorAccount.BBAN)
		return p
	}
	for _, tc := range []struct {
		name    string
		product payments.Product
		path    string
		body    any
		fields  []string // nil: sent
	}{
		{"NDCT as NDCT", payments.ProductNorwegianDomestic, ndctPath, validNDCT(), nil},
		{"SEPA as SEPA", payments.ProductSEPA, sepaPath, validSEPA(), nil},
		{"SEPA with bbans and address as NDCT", payments.ProductNorwegianDomestic, ndctPath, sepaWithBBANs(), nil},
		{"NDCT with ibans as SEPA", payments.ProductSEPA, sepaPath, ndctWithIBANs(), nil},
		{"SEPA as NDCT", payments.ProductNorwegianDomestic, ndctPath, validSEPA(),
			[]string{"creditorAccount.bban", "debtorAccount.bban"}},
		{"SEPA without address as NDCT", payments.ProductNorwegianDomestic, ndctPath, sepaWithoutAddress(),
			[]string{"creditorAccount.bban", "creditorAddress", "debtorAccount.bban"}},
		{"SEPA value as NDCT", payments.ProductNorwegianDomestic, ndctPath, *validSEPA(),
			[]string{"creditorAccount.bban", "debtorAccount.bban"}},
		{"SEPA as instant", payments.ProductInstantNorwegianDomestic, instantPath, validSEPA(),
			[]string{"instructedAmount.currency", "creditorAccount.bban", "debtorAccount.bban"}},
		{"NDCT as SEPA", payments.ProductSEPA, sepaPath, validNDCT(),
			[]string{"creditorAccount.iban", "debtorAccount.iban"}},
		{"NDCT value as SEPA", payments.ProductSEPA, sepaPath, *validNDCT(),
			[]string{"creditorAccount.iban", "debtorAccount.iban"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, tc.path, http.StatusCreated, "payment-ndct-create-201.json")
			_, err := svc.Create(t.Context(), tc.product, tc.body, psuPresent()...)
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

// The bank emulator refuses the same bodies: a SEPA payment sent
// unchecked as an NDCT, and an NDCT sent unchecked as a SEPA payment,
// are 400 FORMAT_ERROR naming the account's missing bban or iban.
func TestEmulatorRefusesATypedPaymentOfAnotherProduct(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	sepa := validSEPA()
	sepa.DebtorAccount.IBAN = ibanFor(kariBruk)
	for _, tc := range []struct {
		name    string
		product payments.Product
		body    any
		path    string
	}{
		{"SEPA as NDCT", payments.ProductNorwegianDomestic, sepa, "creditorAccount.bban"},
		{"NDCT as SEPA", payments.ProductSEPA, ndct(kariBruk, "10.00"), "creditorAccount.iban"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.svc.Create(t.Context(), tc.product, tc.body, b.pisp(client.WithoutValidation())...)
			var ce *client.Error
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
			require.NotEmpty(t, ce.Messages)
			assert.Equal(t, "FORMAT_ERROR", ce.Messages[0].Code)
			assert.Equal(t, tc.path, ce.Messages[0].Path)
		})
	}
}
