package basket_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestCreateRefusesInconsistentCorporateContext: a basket's creation
// holds to the payments' rule: PSU-Context CORPORATE without a
// PSU-Corporate-ID (a corporate user's request without it gets 400,
// docs/interface.md sections 5.10 and 7), or PRIVATE with one, is
// refused before sending with a *client.ValidationError naming the
// header. Before, both went to the bank.
func TestCreateRefusesInconsistentCorporateContext(t *testing.T) {
	const corpID = "6376a34c-9693-465e-a0d8-6c6bdd775263"
	for _, tc := range []struct {
		name  string
		psu   []client.RequestOption
		field string // "" when the create is sent
	}{
		{"corporate without corporate id", []client.RequestOption{client.WithPSUContext(client.Corporate)}, "PSU-Corporate-ID"},
		{"private with corporate id", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: "192.0.2.10"}),
			client.WithPSUContext(client.Private)}, "PSU-Context"},
		{"corporate with corporate id", []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, CorporateID: corpID, IPAddress: "192.0.2.10"}),
			client.WithPSUContext(client.Corporate)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := mockBank(t)
			httpmock.RegisterResponder(http.MethodPost, baseURL+"/v1/signing-baskets",
				httpmock.NewBytesResponder(http.StatusCreated, doc(t, "signing-basket-create-201.json")).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
			_, err := svc.Create(t.Context(), []string{docPayment1, docPayment2}, append(basketOpts(), tc.psu...)...)
			if tc.field == "" {
				require.NoError(t, err)
				assert.Equal(t, 1, httpmock.GetTotalCallCount())
				return
			}
			require.ErrorIs(t, err, client.ErrValidation)
			var ve *client.ValidationError
			require.True(t, errors.As(err, &ve))
			assert.Equal(t, tc.field, ve.Field)
			assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing sent")
		})
	}
}
