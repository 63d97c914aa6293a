package client

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answeredOut is a result type that embeds an Answer, as every typed
// result of the services does.
type answeredOut struct {
	Answer
	A string `json:"a"`
}

// TestNilPointerOutRefused: a nil pointer as Do's out (a *T that is
// nil, not the nil interface that discards the body) is a bad argument:
// the call is refused before it is sent with a *ValidationError naming
// out, never a panic, whatever the bank would answer. On the code before,
// an empty 2xx answer (a 204, a 200 without a body) panicked delivering
// the Meta into the nil result of a type embedding an Answer, and a body
// was sent for (a payment created) and then failed to decode.
func TestNilPointerOutRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		status int
		body   string
	}{
		{"204", http.StatusNoContent, ""},
		{"200 without a body", http.StatusOK, ""},
		{"201 with a body", http.StatusCreated, `{"a":"x","paymentId":"p1"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			c := newTestClient(t, b.URL)
			for _, out := range []any{(*answeredOut)(nil), (*struct{ A string })(nil)} {
				for _, op := range []Operation{
					{Method: http.MethodGet, Path: "/v1/accounts"},
					{Method: http.MethodPost, Path: "/v1/payments/sepa-credit-transfers", Body: map[string]int{"n": 1}},
				} {
					var err error
					require.NotPanics(t, func() { _, err = c.Do(t.Context(), op, out) }, "%T %s", out, op.Method)
					var ve *ValidationError
					require.True(t, errors.Is(err, ErrNotSent) && errors.As(err, &ve), "%T %s: %v", out, op.Method, err)
					assert.Equal(t, "out", ve.Field)
				}
			}
			assert.Zero(t, b.count.Load(), "a call whose answer has nowhere to go was sent")
		})
	}
}
