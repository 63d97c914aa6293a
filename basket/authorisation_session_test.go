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

// TestStartAuthorisationNeedsTPPSessionID: a basket's authorisation
// starts an SCA that belongs to the PSU's session, as a payment's does;
// the bank answers a start without TPP-Session-ID 400
// HTTP_HEADER_REQUIRED. The client refuses it first, by id and by link,
// with a *client.ValidationError naming the header, and sends nothing.
func TestStartAuthorisationNeedsTPPSessionID(t *testing.T) {
	svc := mockBank(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated,
		`{"scaStatus":"received","_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/9999/"}}}`))
	noSession := []client.RequestOption{client.WithRedirectURI("https://tpp.example/cb?state=basket"),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: "192.0.2.10"})}
	ctx := t.Context()
	for name, call := range map[string]func(...client.RequestOption) error{
		"StartAuthorisation": func(ro ...client.RequestOption) error {
			_, err := svc.StartAuthorisation(ctx, docBasketID, ro...)
			return err
		},
		"StartAuthorisationAt": func(ro ...client.RequestOption) error {
			_, err := svc.StartAuthorisationAt(ctx, "/v1/signing-baskets/"+docBasketID+"/authorisations", ro...)
			return err
		},
	} {
		httpmock.ZeroCallCounters()
		err := call(noSession...)
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, client.ErrNotSent), "%s: %v", name, err)
		var ve *client.ValidationError
		require.True(t, errors.As(err, &ve), "%s: %v", name, err)
		assert.Equal(t, "TPP-Session-ID", ve.Field, name)
		assert.Zero(t, httpmock.GetTotalCallCount(), "%s: nothing sent", name)

		require.NoError(t, call(append(noSession, client.WithTPPSessionID("pis-session-1"))...), name)
		assert.Equal(t, 1, httpmock.GetTotalCallCount(), name)
	}
}
