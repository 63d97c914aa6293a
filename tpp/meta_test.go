package tpp_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/metatest"
)

// TestMetaOfEveryCall: Contact and SetContact give, on success, the
// response metadata of their answer by the result's Meta method, whose
// RequestID is the X-Request-ID the bank saw on the wire.
func TestMetaOfEveryCall(t *testing.T) {
	svc := newMockService(t)
	var wire metatest.Wire
	for _, method := range []string{http.MethodGet, http.MethodPut} {
		httpmock.RegisterResponder(method, contactPath, func(req *http.Request) (*http.Response, error) {
			wire.Saw(req)
			return jsonResponse(http.StatusOK, `{"email":"tpp.contact@tpp.example.com"}`), nil
		})
	}
	got, err := svc.Contact(t.Context())
	require.NoError(t, err)
	wire.Check(t, 0, "tpp.Contact", http.StatusOK, got.Meta())
	got, err = svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
	require.NoError(t, err)
	wire.Check(t, 1, "tpp.SetContact", http.StatusOK, got.Meta())
}
