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

// TestStartAuthorisationNeedsTPPSessionID: the SCA a payment's
// authorisation starts belongs to the TPP-Session-ID of the request that
// starts it, which the bank's redirect after SCA brings back as
// tpp-session-id (docs/interface.md sections 3 and 6); the bank answers a
// start without one 400 HTTP_HEADER_REQUIRED. The client refuses it
// first, by ref and by link, with a *client.ValidationError naming the
// header, and sends nothing. Before, both went to the bank.
func TestStartAuthorisationNeedsTPPSessionID(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated,
		`{"scaStatus":"received","_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/9999/"}}}`))
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	noSession := []client.RequestOption{client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})}
	ctx := t.Context()
	for name, call := range map[string]func(...client.RequestOption) error{
		"StartAuthorisation": func(ro ...client.RequestOption) error { _, err := svc.StartAuthorisation(ctx, ref, ro...); return err },
		"StartAuthorisationAt": func(ro ...client.RequestOption) error {
			_, err := svc.StartAuthorisationAt(ctx, self+"/authorisations", ro...)
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

		// With the session the start goes out.
		require.NoError(t, call(append(noSession, client.WithTPPSessionID(sessionID))...), name)
		assert.Equal(t, 1, httpmock.GetTotalCallCount(), name)
	}
}
