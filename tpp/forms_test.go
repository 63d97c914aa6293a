package tpp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/tpp"
)

// TestContactFormsHideTheAddress: the interface asks for an official,
// non-personal address, but nothing stops a TPP registering a person's
// (kari.nordmann@tpp.example). No printed form (every fmt verb, of the
// value, its pointer, a slice and a struct holding it) and no slog form
// of a Contact shows the address; its JSON is the bank's document and
// keeps it.
func TestContactFormsHideTheAddress(t *testing.T) {
	t.Parallel()
	const email = "kari.nordmann@tpp.example"
	c := tpp.Contact{Email: email}
	secrets := redacttest.WithHex("kari.nordmann", email)
	forms := redacttest.AssertHidden(t, c, secrets)
	redacttest.AssertHidden(t, &c, secrets)
	redacttest.AssertHidden(t, []tpp.Contact{c, c}, secrets)
	redacttest.AssertHidden(t, struct{ V any }{c}, secrets)
	for _, verb := range redacttest.Verbs {
		assert.Contains(t, forms[verb], "tpp.Contact", "%s names the type", verb)
	}
	assert.Contains(t, forms["%v"], "[redacted]")

	js, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"email":"kari.nordmann@tpp.example"}`, string(js))
}
