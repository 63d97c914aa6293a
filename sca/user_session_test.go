package sca_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sca"
)

// TestUserNeedsTPPSessionID: GET /v1/user starts a PISP's SCA
// (docs/interface.md sections 4.5 and 5.10), which belongs to the
// TPP-Session-ID of the request that starts it and comes back in the
// redirect as tpp-session-id (sections 3 and 6). sca.User without one is
// refused before it is sent, with a *client.ValidationError naming the
// header.
func TestUserNeedsTPPSessionID(t *testing.T) {
	c := testtpp.MockClient(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusUnauthorized,
		`{"_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/9999/","verbs":["GET"]}}}`))

	_, needed, err := sca.User(t.Context(), c)
	require.Error(t, err)
	assert.False(t, needed)
	assert.True(t, errors.Is(err, client.ErrNotSent), "%v", err)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "TPP-Session-ID", ve.Field)
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")
}
