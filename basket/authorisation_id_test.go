package basket_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestStartAuthorisationIDBounded: the authorisationId of a basket's
// start-authorisation answer names a sub-resource a later call would put
// in a path, so it is checked as the basket's own id is: one longer than
// client.MaxIDLength bytes (a megabyte, within the client's bound on a
// body) is a client.ValueTooLongError, one with a control character or
// bytes that are not UTF-8 a client.MalformedValueError, neither quoting
// it, the start's outcome unknown. Before, it was kept as sent. One of
// the interface's form is kept.
func TestStartAuthorisationIDBounded(t *testing.T) {
	const redirect = `"_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/1?state=s"}}`
	for want, id := range map[error]string{
		client.ErrValueTooLong:   "auth-" + strings.Repeat("A", 1<<20),
		client.ErrMalformedValue: `auth-AB\u001b[2JCD`,
	} {
		svc := mockBank(t)
		httpmock.RegisterResponder(http.MethodPost, basketURL+"/"+docBasketID+"/authorisations", httpmock.NewStringResponder(http.StatusCreated,
			`{"scaStatus":"started","authorisationId":"`+id+`",`+redirect+`}`))
		got, err := svc.StartAuthorisation(t.Context(), docBasketID, basketOpts()...)
		assert.Nil(t, got)
		require.ErrorIs(t, err, want)
		assert.ErrorIs(t, err, client.ErrOutcomeUnknown)
		assert.NotContains(t, err.Error(), "auth-")
		assert.Less(t, len(err.Error()), 1000)
	}

	svc := mockBank(t)
	httpmock.RegisterResponder(http.MethodPost, basketURL+"/"+docBasketID+"/authorisations", httpmock.NewStringResponder(http.StatusCreated,
		`{"scaStatus":"started","authorisationId":"123e4567-e89b-12d3-a456-426614174000",`+redirect+`}`))
	got, err := svc.StartAuthorisation(t.Context(), docBasketID, basketOpts()...)
	require.NoError(t, err)
	assert.Equal(t, "123e4567-e89b-12d3-a456-426614174000", got.AuthorisationID)
}
