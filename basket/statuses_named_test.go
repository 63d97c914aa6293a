package basket_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
)

// TestDeleteAndAuthorisationNamedStatuses: a basket's deletion is
// confirmed only by the 204 the interface names, a start of its
// authorisation only by 201; another 2xx is client.ErrUnexpectedStatus.
func TestDeleteAndAuthorisationNamedStatuses(t *testing.T) {
	svc := mockBank(t)
	ctx := context.Background()
	httpmock.RegisterResponder(http.MethodDelete, baseURL+"/v1/signing-baskets/b1", httpmock.NewStringResponder(http.StatusOK, `{}`))
	httpmock.RegisterResponder(http.MethodPost, baseURL+"/v1/signing-baskets/b1/authorisations",
		httpmock.NewStringResponder(http.StatusOK, `{"scaStatus":"started","_links":{"scaRedirect":{"href":"https://bank.example/tap/1"}}}`))
	assert.ErrorIs(t, svc.Delete(ctx, "b1", basketOpts()...), client.ErrUnexpectedStatus)
	assert.ErrorIs(t, svc.DeleteAt(ctx, "/v1/signing-baskets/b1", basketOpts()...), client.ErrUnexpectedStatus)
	a, err := svc.StartAuthorisation(ctx, "b1", basketOpts()...)
	assert.ErrorIs(t, err, client.ErrUnexpectedStatus)
	assert.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Nil(t, a)

	httpmock.Reset()
	httpmock.RegisterResponder(http.MethodDelete, baseURL+"/v1/signing-baskets/b1", httpmock.NewStringResponder(http.StatusNoContent, ""))
	assert.NoError(t, svc.Delete(ctx, "b1", basketOpts()...))
}
