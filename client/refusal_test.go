package client

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every refusal before sending is one error matching both ErrNotSent and
// ErrValidation, whose field errors.As gives: a bad option, a bad path
// parameter, a refusal the service declared. Nothing reaches the bank.
func TestEveryRefusalIsNotSentAndValidation(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{}`)) })
	c := newTestClient(t, b.URL)
	get := Operation{Method: http.MethodGet, Path: "/v1/accounts/{accountId}/balances", Params: map[string]string{"accountId": "a1"}}
	with := func(f func(*Operation)) Operation {
		op := get
		op.Params = map[string]string{"accountId": "a1"}
		f(&op)
		return op
	}
	boom := errors.New("no payment given")
	tests := []struct {
		name  string
		op    Operation
		opts  []RequestOption
		field string
	}{
		{"PSU-ID not a UUID", get, []RequestOption{WithPSU(PSU{ID: "not-a-uuid"})}, "header PSU-ID"},
		{"PSU-Device-ID not a UUID", get, []RequestOption{WithHeader("psu-device-id", "x")}, "header psu-device-id"},
		{"redirect URI not https", get, []RequestOption{WithRedirectURI("http://tpp.example/cb")}, "header TPP-Redirect-URI"},
		{"bad header name", get, []RequestOption{WithHeader("Bad Header", "x")}, `header "Bad Header"`},
		{"header value with a line break", get, []RequestOption{WithHeader("X-Note", "a\r\nb")}, "header X-Note"},
		{"empty TPP-Session-ID", get, []RequestOption{WithTPPSessionID("")}, "header TPP-Session-ID"},
		{"reserved header", get, []RequestOption{WithHeader("Digest", "x")}, "header Digest"},
		{"bad request id", get, []RequestOption{WithRequestID(" x")}, "header X-Request-ID"},
		{"bad PSU-Context", get, []RequestOption{WithPSUContext("BOTH")}, "header PSU-Context"},
		{"empty query name", get, []RequestOption{WithQuery("", "x")}, "query"},
		{"empty account id", with(func(op *Operation) { op.Params["accountId"] = "" }), nil, "accountId"},
		{"dot account id", with(func(op *Operation) { op.Params["accountId"] = "." }), nil, "accountId"},
		{"dot-dot account id", with(func(op *Operation) { op.Params["accountId"] = ".." }), nil, "accountId"},
		{"control character in id", with(func(op *Operation) { op.Params["accountId"] = "a\x00b" }), nil, "accountId"},
		{"parameter without value", with(func(op *Operation) { op.Params = map[string]string{} }), nil, "accountId"},
		{"declared refusal", with(func(op *Operation) { op.Refuse = &ValidationError{Field: "body", Reason: "no payment given"} }), nil, "body"},
		{"declared plain refusal", with(func(op *Operation) { op.Refuse = boom }), nil, "request"},
		{"unencodable body", with(func(op *Operation) { op.Method, op.Body = http.MethodPost, make(chan int) }), nil, "body"},
		{"link to another host", Operation{Method: http.MethodGet, Path: "https://evil.example/v1/x"}, nil, "request"},
	}
	for _, tc := range tests {
		_, err := c.Do(t.Context(), tc.op, nil, tc.opts...)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrNotSent, tc.name)
		assert.ErrorIs(t, err, ErrValidation, tc.name)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, tc.name) {
			assert.Equal(t, tc.field, ve.Field, tc.name)
		}
	}
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "https://evil.example/v1/x"}, nil)
	assert.ErrorIs(t, err, ErrForeignHost, "the refusal keeps its cause")
	assert.Zero(t, b.count.Load(), "nothing was sent")

	// A valid call fills and escapes the template's parameters.
	_, err = c.Do(t.Context(), with(func(op *Operation) { op.Params["accountId"] = "enc!!a/b c=" }), nil)
	require.NoError(t, err)
	assert.Equal(t, "/v1/accounts/enc!!a%2Fb%20c=/balances", b.requests()[0].URL)
}
