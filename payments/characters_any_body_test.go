package payments_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// anyBodyWith returns a body of the caller's own (a map, as for a
// product the SDK has no type for) of the domestic payment from debtor,
// with the member name set to value.
func anyBodyWith(t *testing.T, debtor, name string, value any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(ndct(debtor, "10.00"))
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body))
	body[name] = value
	return body
}

// A body of the caller's own, which has no Validate method, is checked
// for the characters the bank cannot process (docs/interface.md sections
// 1.6 and 7: an emoji is answered 400, on every request): the SDK knows
// them whatever the body's type. Before the fix a cross-border payment,
// a bulk payment or a periodic one written as a map was sent with an
// emoji in its remittance text or a pictograph in a creditor's name, for
// the bank to refuse with 400 FORMAT_ERROR. The refusal names the member
// as the bank does; a body without such a character is sent.
func TestCreateRefusesAnEmojiInABodyOfItsOwn(t *testing.T) {
	periodic := func(name string, value any) map[string]any {
		b := anyBodyWith(t, kariBruk, name, value)
		b["startDate"], b["frequency"] = "2025-03-17", "Monthly"
		return b
	}
	bulk := func(entry map[string]any) map[string]any {
		return map[string]any{"debtorAccount": map[string]any{"bban": kariBruk, "currency": "NOK"},
			"payments": []any{anyBodyWith(t, kariBruk, "creditorName", "Ola"), entry}}
	}
	for _, tc := range []struct {
		name   string
		create func(*payments.Service) error
		path   string
		field  string // "" means sent
	}{
		{"cross-border, plain text", func(s *payments.Service) error {
			_, err := s.Create(t.Context(), payments.ProductCrossBorder, anyBodyWith(t, kariBruk, "remittanceInformationUnstructured", "Hyttetur påske"), psuPresent()...)
			return err
		}, "/v1/payments/cross-border-credit-transfers", ""},
		{"cross-border, emoji in remittance", func(s *payments.Service) error {
			_, err := s.Create(t.Context(), payments.ProductCrossBorder, anyBodyWith(t, kariBruk, "remittanceInformationUnstructured", "Pizza \U0001F355"), psuPresent()...)
			return err
		}, "/v1/payments/cross-border-credit-transfers", "remittanceInformationUnstructured"},
		{"cross-border, pictograph in an address", func(s *payments.Service) error {
			_, err := s.Create(t.Context(), payments.ProductCrossBorder, anyBodyWith(t, kariBruk, "creditorAddress", map[string]any{"street": "Kjærlighetsstien \u2764", "country": "NO"}), psuPresent()...)
			return err
		}, "/v1/payments/cross-border-credit-transfers", "creditorAddress.street"},
		{"periodic map, pictograph in creditorName", func(s *payments.Service) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, periodic("creditorName", "Kaffebar \u2615"), psuPresent()...)
			return err
		}, "/v1/periodic-payments/norwegian-domestic-credit-transfers", "creditorName"},
		{"bulk, pictograph in the second entry", func(s *payments.Service) error {
			_, err := s.CreateBulk(t.Context(), payments.ProductNorwegianDomestic, bulk(anyBodyWith(t, kariBruk, "creditorName", "\u2764")), psuPresent()...)
			return err
		}, "/v1/bulk-payments/norwegian-domestic-credit-transfers", "payments[1].creditorName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, tc.path, http.StatusCreated, "payment-ndct-create-201.json")
			err := tc.create(svc)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, got.req, "sent")
				return
			}
			requireRefusedUnsent(t, got, err, tc.field)
		})
	}
}

// The bank emulator refuses the same body, sent without the SDK's
// validation, with 400 FORMAT_ERROR at the same member.
func TestEmulatorRefusesAnEmojiInABodyOfItsOwn(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	_, err := b.svc.Create(t.Context(), payments.ProductCrossBorder,
		anyBodyWith(t, kariBruk, "remittanceInformationUnstructured", "Pizza \U0001F355"), b.pisp(client.WithoutValidation())...)
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
	require.NotEmpty(t, ce.Messages)
	assert.Equal(t, "FORMAT_ERROR", ce.Messages[0].Code)
	assert.Equal(t, "remittanceInformationUnstructured", ce.Messages[0].Path)
}
