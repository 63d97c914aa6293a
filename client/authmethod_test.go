package client

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// X-PSU-AuthMethod-Preferred takes only the methods the interface lists
// (docs/interface.md section 5.11): any other value, through the typed
// option or WithHeader in any spelling of the name, refuses the call
// before it is sent with a *ValidationError naming the header, and every
// listed method is sent as given.
func TestAuthMethodPreferredChecked(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"paymentId":"p1","transactionStatus":"RCVD"}`)
	})
	c := newTestClient(t, b.URL)
	op := Operation{Name: "test.Create", Method: "POST", Path: "/v1/payments/sepa-credit-transfers",
		Body: map[string]string{"a": "b"}, ResultID: "paymentId"}
	for name, o := range map[string]RequestOption{
		"unlisted":                 WithAuthMethodPreferred("FACE_ID"),
		"lower case":               WithAuthMethodPreferred("ha2"),
		"padded":                   WithAuthMethodPreferred(" HA2"),
		"the interface's marker":   WithAuthMethodPreferred("<BANK_ID_METHOD>"),
		"through WithHeader":       WithHeader("x-psu-authmethod-preferred", "SMS"),
		"empty through WithHeader": WithHeader("X-PSU-AuthMethod-Preferred", ""),
	} {
		_, err := c.Do(t.Context(), op, nil, o)
		require.ErrorIs(t, err, ErrNotSent, name)
		require.ErrorIs(t, err, ErrValidation, name)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "header X-PSU-AuthMethod-Preferred", ve.Field, name)
	}
	assert.Empty(t, b.requests(), "nothing reaches the bank")

	for _, m := range []string{"ENGANGSKODEAPP_BIOMETRI", "HA2", "BANKID_MOBIL", "BANKID"} {
		_, err := c.Do(t.Context(), op, nil, WithAuthMethodPreferred(m))
		require.NoError(t, err, m)
		reqs := b.requests()
		require.NotEmpty(t, reqs)
		assert.Equal(t, m, reqs[len(reqs)-1].Header.Get("X-PSU-AuthMethod-Preferred"))
	}
}
