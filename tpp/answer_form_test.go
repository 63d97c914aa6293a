package tpp_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestContactAnswerForm: an address in the bank's contact answer holding
// a control character (a line break, a terminal escape, a NUL) or bytes
// that are not UTF-8 is a *client.MalformedValueError quoting nothing of
// it, never a Contact the TPP shows or stores; before, only its length
// was checked and it was kept as sent. An address of UTF-8 letters
// (which ValidateEmail would not send) is the bank's and is kept.
func TestContactAnswerForm(t *testing.T) {
	svc := newMockService(t)
	for name, body := range map[string]string{
		"line break":  `{"email":"secret\nsupport@tpp.example.com"}`,
		"escape":      `{"email":"secret\u001b[2Jsupport@tpp.example.com"}`,
		"NUL":         `{"email":"secret\u0000@tpp.example.com"}`,
		"C1":          `{"email":"secret\u0085@tpp.example.com"}`,
		"not UTF-8":   "{\"email\":\"secret\xff@tpp.example.com\"}",
		"lone escape": `{"email":"secret\udc00@tpp.example.com"}`,
	} {
		for _, method := range []string{http.MethodGet, http.MethodPut} {
			httpmock.RegisterResponder(method, contactPath, httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, body)))
		}
		got, err := svc.Contact(t.Context())
		assert.Nil(t, got, name)
		require.ErrorIs(t, err, client.ErrMalformedValue, name)
		assert.NotContains(t, err.Error(), "secret", name)
		got, err = svc.SetContact(t.Context(), "support@tpp.example.com")
		assert.Nil(t, got, name)
		require.ErrorIs(t, err, client.ErrMalformedValue, name)
	}

	httpmock.RegisterResponder(http.MethodGet, contactPath, httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"støtte@tpp.example.no"}`)))
	got, err := svc.Contact(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "støtte@tpp.example.no", got.Email)
}
