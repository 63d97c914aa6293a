package tpp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestContactAnswerBounded: the address in the bank's answer is held to
// an e-mail address's 254 characters (RFC 5321), the bound ValidateEmail
// holds the TPP's own to: a longer one (a megabyte, within the client's
// bound on a body) is a client.ValueTooLongError that quotes nothing of
// it, never a Contact the TPP shows or stores. Before, it was kept whole.
func TestContactAnswerBounded(t *testing.T) {
	long := strings.Repeat("a", 1<<20) + "@tpp.example.com"
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodGet, contactPath, httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"`+long+`"}`)))
	got, err := svc.Contact(t.Context())
	assert.Nil(t, got)
	require.ErrorIs(t, err, client.ErrValueTooLong)
	assert.Less(t, len(err.Error()), 500)

	httpmock.RegisterResponder(http.MethodPut, contactPath, httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"`+long+`"}`)))
	got, err = svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
	assert.Nil(t, got)
	require.ErrorIs(t, err, client.ErrValueTooLong)

	ok := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + ".example.no"
	httpmock.RegisterResponder(http.MethodGet, contactPath, httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"`+ok+`"}`)))
	got, err = svc.Contact(t.Context())
	require.NoError(t, err)
	assert.Equal(t, ok, got.Email)
}
