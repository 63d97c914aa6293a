package payments_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// TestCancelNoContentWithContentEncoding: a 204 confirms the cancellation
// whatever Content-Encoding it names (a gateway that sets one on every
// answer): there is no body to undo. On the code before, Cancel failed
// with "reading answer: answer in content encoding ...", the payment
// cancelled.
func TestCancelNoContentWithContentEncoding(t *testing.T) {
	svc := newMockService(t)
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	httpmock.RegisterResponder(http.MethodDelete, baseURL+self, func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusNoContent, "")
		r.Header.Set("Content-Encoding", "deflate")
		return r, nil
	})
	c, err := svc.Cancel(t.Context(), ref, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, c.StatusCode)
}

// TestStatusNotFoundWithUndecodableBody: a 404 is a *client.Error
// matching client.ErrNotFound whatever its body, one whose
// Content-Encoding cannot be undone included (a gateway's page labelled
// gzip). On the code before, Status failed with "reading answer: gzip
// answer: gzip: invalid header", which matched neither.
func TestStatusNotFoundWithUndecodableBody(t *testing.T) {
	svc := newMockService(t)
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID + "/status"
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	httpmock.RegisterResponder(http.MethodGet, baseURL+self, func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(http.StatusNotFound, "<html>Not Found</html>")
		r.Header.Set("Content-Encoding", "gzip")
		return r, nil
	})
	_, err := svc.Status(t.Context(), ref, psuPresent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce, "%v", err)
	assert.Equal(t, http.StatusNotFound, ce.StatusCode)
	assert.ErrorIs(t, err, client.ErrNotFound)
}
