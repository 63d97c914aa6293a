package payments_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/payments"
)

// TestCancelAnswersOutsideTheInterface: a cancellation's answer is 204, or
// 202 with a body (docs/interface.md section 10 "Paths"). Any other 2xx,
// a 202 without a body, or one whose body says nothing usable, is no
// confirmation and no refusal: Cancel returns an error matching
// ErrCancellationUnconfirmed (never a *Cancellation), which tells the
// caller to read the payment's status, and neither claims the payment was
// cancelled nor that it was not.
func TestCancelAnswersOutsideTheInterface(t *testing.T) {
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	body202 := `{"transactionStatus":"ACTC","_links":{"startAuthorisation":{"href":"` + self + `/cancellation-authorisations","verbs":["POST"]}}}`
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"200 with a 202's body", http.StatusOK, body202},
		{"200 empty", http.StatusOK, ""},
		{"201", http.StatusCreated, body202},
		{"203", http.StatusNonAuthoritativeInfo, body202},
		{"205", http.StatusResetContent, ""},
		{"206", http.StatusPartialContent, body202},
		{"202 without a body", http.StatusAccepted, ""},
		{"202 blank body", http.StatusAccepted, " \n"},
		{"202 null", http.StatusAccepted, "null"},
		{"202 not JSON", http.StatusAccepted, "<html>accepted</html>"},
		{"202 a list", http.StatusAccepted, `[{"transactionStatus":"ACTC"}]`},
		{"202 wrong types", http.StatusAccepted, `{"transactionStatus":7,"_links":"x"}`},
		{"202 saying nothing", http.StatusAccepted, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []struct {
				name string
				do   func(*payments.Service) (*payments.Cancellation, error)
			}{
				{"Cancel", func(svc *payments.Service) (*payments.Cancellation, error) {
					return svc.Cancel(t.Context(), ref, psuPresent()...)
				}},
				{"CancelAt", func(svc *payments.Service) (*payments.Cancellation, error) {
					return svc.CancelAt(t.Context(), self, psuPresent()...)
				}},
			} {
				svc := newMockService(t)
				httpmock.RegisterResponder(http.MethodDelete, baseURL+self, httpmock.NewStringResponder(tc.status, tc.body))
				httpmock.ZeroCallCounters()
				c, err := call.do(svc)
				require.Error(t, err, "%s: a %d %q is not an answer the interface names", call.name, tc.status, tc.body)
				assert.Nil(t, c, call.name)
				assert.ErrorIs(t, err, payments.ErrCancellationUnconfirmed, call.name)
				var ue *payments.CancellationUnconfirmedError
				require.ErrorAs(t, err, &ue, call.name)
				assert.Equal(t, tc.status, ue.StatusCode, call.name)
				assert.Equal(t, "payments."+call.name, ue.Operation)
				assert.NotEmpty(t, ue.RequestID)
				msg := err.Error()
				assert.Contains(t, msg, "not an answer the interface names")
				assert.Contains(t, msg, "read the payment's status")
				assert.NotContains(t, msg, "accepted</html>", "the bank's text is not quoted")
				// Neither a refusal by the bank, nor a failure to send, nor
				// an outcome left unknown by a missing answer.
				var ce *client.Error
				assert.False(t, errors.As(err, &ce), call.name)
				assert.NotErrorIs(t, err, client.ErrNotSent)
				assert.NotErrorIs(t, err, client.ErrOutcomeUnknown)
				assert.Equal(t, 1, httpmock.GetTotalCallCount(), "sent once")
			}
		})
	}
}

// TestCancel204WithABody: a 204 says the payment is cancelled whatever
// body came with it (a 204 has none, RFC 9110 section 15.3.5): the body is
// not read, so it can neither turn the confirmation into an error nor
// put a status or links into the Cancellation that the documentation
// says a 204 leaves empty.
func TestCancel204WithABody(t *testing.T) {
	self := "/v1/payments/norwegian-domestic-credit-transfers/" + ndctID
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: ndctID}
	for _, body := range []string{
		`{"transactionStatus":"RJCT","_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/x","verbs":["GET"]}}}`,
		"not JSON",
		"null",
	} {
		svc := newMockService(t)
		httpmock.RegisterResponder(http.MethodDelete, baseURL+self, httpmock.NewStringResponder(http.StatusNoContent, body))
		c, err := svc.Cancel(t.Context(), ref, psuPresent()...)
		require.NoError(t, err, body)
		assert.Equal(t, &payments.Cancellation{StatusCode: http.StatusNoContent}, metatest.Strip(c), body)
		assert.Equal(t, http.StatusNoContent, c.Meta().StatusCode)
		assert.Empty(t, c.SCARedirect())
	}
}
