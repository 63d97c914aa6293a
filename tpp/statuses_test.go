package tpp_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/tpp"
)

// TestContactCallsOnlyBy200: docs/interface.md section 10 "Paths" names
// 200 for reading and for registering the contact address. Another 2xx (a
// 201, 202 or 204) is a client.UnexpectedStatusError: neither a
// registered address (SetContact would report the address it sent) nor
// ErrNotRegistered (Contact would report none registered).
func TestContactCallsOnlyBy200(t *testing.T) {
	for _, status := range []int{http.StatusCreated, http.StatusAccepted, http.StatusNoContent} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			svc := newMockService(t)
			body := `{"email":"tpp.contact@tpp.example.com"}`
			if status == http.StatusNoContent {
				body = ""
			}
			calls := 0
			respond := func(*http.Request) (*http.Response, error) { calls++; return jsonResponse(status, body), nil }
			httpmock.RegisterResponder(http.MethodGet, contactPath, respond)
			httpmock.RegisterResponder(http.MethodPut, contactPath, respond)

			got, err := svc.Contact(t.Context())
			assert.Nil(t, got)
			require.ErrorIs(t, err, client.ErrUnexpectedStatus)
			assert.NotErrorIs(t, err, tpp.ErrNotRegistered)

			got, err = svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
			assert.Nil(t, got)
			require.ErrorIs(t, err, client.ErrUnexpectedStatus)
			var ue *client.UnexpectedStatusError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, status, ue.StatusCode)
			assert.Equal(t, []int{http.StatusOK}, ue.Named)
			assert.Equal(t, 2, calls, "a 2xx is not retried")
		})
	}
}
