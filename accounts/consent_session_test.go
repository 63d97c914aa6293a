package accounts_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestStartConsentNeedsTPPSessionID: the consent's SCA belongs to the
// TPP-Session-ID of the request that starts it; the bank's redirect after
// SCA carries it back as tpp-session-id (docs/interface.md sections 3 and
// 6), and the platform keys every later AIS call by it (section 10
// "Session model"). A StartConsent without one is refused before it is
// sent, with a *client.ValidationError naming the header.
func TestStartConsentNeedsTPPSessionID(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusCreated,
		`{"_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/9999/","verbs":["GET"]}}}`))

	_, err := svc.StartConsent(t.Context(), client.WithRedirectURI(redirectURI))
	require.Error(t, err)
	assert.True(t, errors.Is(err, client.ErrNotSent), "%v", err)
	assert.True(t, errors.Is(err, client.ErrValidation), "%v", err)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "TPP-Session-ID", ve.Field)
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")
}
