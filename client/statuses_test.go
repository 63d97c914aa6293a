package client

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cannedTransport answers every request with status and body, as a bank
// whose transport does not drop a 204's body would.
type cannedTransport struct {
	status int
	body   string
	calls  int
}

func (c *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls++
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(c.body)), Request: r}, nil
}

// TestOperationStatuses: a 2xx status outside an operation's Statuses is
// neither decoded nor a success, for a repeatable call (an
// *UnexpectedStatusError, matching neither ErrNotSent nor
// ErrOutcomeUnknown) and, inside an ErrOutcomeUnknown, for one that is
// not; a status among them is decoded as before; without Statuses every
// 2xx is a success.
func TestOperationStatuses(t *testing.T) {
	named := []int{http.StatusNoContent, http.StatusAccepted}
	for _, tc := range []struct {
		name       string
		method     string
		repeatable bool
		statuses   []int
		status     int
		wantErr    bool
	}{
		{"DELETE 200 outside", http.MethodDelete, true, named, http.StatusOK, true},
		{"DELETE 201 outside", http.MethodDelete, true, named, http.StatusCreated, true},
		{"DELETE 202 named", http.MethodDelete, true, named, http.StatusAccepted, false},
		{"DELETE 200 nothing named", http.MethodDelete, true, nil, http.StatusOK, false},
		{"POST 200 outside", http.MethodPost, false, []int{http.StatusCreated}, http.StatusOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &cannedTransport{status: tc.status, body: `{"a":"x"}`}
			c := newTestClient(t, "https://bank.example/api", WithHTTPClient(&http.Client{Transport: tr}))
			var out struct{ A string }
			op := Operation{Name: "x.Op", Method: tc.method, Path: "/v1/x/1", Statuses: tc.statuses}
			if tc.method == http.MethodPost {
				op.Body = map[string]string{}
			}
			resp, err := c.Do(t.Context(), op, &out)
			assert.Equal(t, 1, tr.calls, "sent once")
			if !tc.wantErr {
				require.NoError(t, err)
				assert.Equal(t, tc.status, resp.StatusCode)
				assert.Equal(t, "x", out.A)
				return
			}
			require.Error(t, err)
			assert.Nil(t, resp)
			assert.Empty(t, out.A, "the answer is not decoded")
			assert.ErrorIs(t, err, ErrUnexpectedStatus)
			var us *UnexpectedStatusError
			require.ErrorAs(t, err, &us)
			assert.Equal(t, tc.status, us.StatusCode)
			assert.Equal(t, tc.statuses, us.Named)
			assert.Equal(t, "x.Op", us.Operation)
			assert.NotEmpty(t, us.RequestID)
			assert.Contains(t, err.Error(), "not an answer the interface names")
			assert.NotErrorIs(t, err, ErrNotSent)
			assert.Equal(t, !tc.repeatable, errors.Is(err, ErrOutcomeUnknown))
			var ce *Error
			assert.False(t, errors.As(err, &ce), "not a refusal by the bank")
		})
	}
}

// TestNoContentBodyNotRead: a 204 has no content (RFC 9110): a body that
// comes with it anyway is not decoded, so it neither fails the call nor
// fills the caller's value.
func TestNoContentBodyNotRead(t *testing.T) {
	for _, body := range []string{`{"a":"x"}`, "not JSON", "null"} {
		tr := &cannedTransport{status: http.StatusNoContent, body: body}
		c := newTestClient(t, "https://bank.example/api", WithHTTPClient(&http.Client{Transport: tr}))
		var out struct{ A string }
		resp, err := c.Do(t.Context(), Operation{Name: "x.Delete", Method: http.MethodDelete, Path: "/v1/x/1"}, &out)
		require.NoError(t, err, body)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
		assert.Empty(t, out.A, body)
	}
}
