package sandbox

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
)

// A customer name with an emoji, in the Basic Multilingual Plane or not,
// is refused before sending (docs/interface.md sections 1.6 and 7).
func TestCustomerNameRefusesPictographs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Kari \u2705", "Kari \u2615", "Kari \u2764", "Kari \U0001F600"} {
		n := &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: name}
		assert.ErrorContains(t, n.validate(), "cannot process", name)
	}
	n := &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: "Kåre Ødegård"}
	assert.NoError(t, n.validate())
}

// customerName's limit is 70 characters, not bytes: 70 two-byte letters pass, 71 are refused, and a name that is
// not UTF-8 is refused with a [*client.ValidationError] naming the field.
func TestCustomerNameCountsCharacters(t *testing.T) {
	t.Parallel()
	newCustomer := func(name string) *NewCustomer {
		return &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: name}
	}
	for _, name := range []string{strings.Repeat("Ø", 40), strings.Repeat("Ø", 70), strings.Repeat("x", 70)} {
		assert.NoError(t, newCustomer(name).validate(), "%d characters, %d bytes", utf8.RuneCountInString(name), len(name))
	}
	for _, tt := range []struct{ name, reason string }{
		{strings.Repeat("Ø", 71), "1 to 70 characters"},
		{strings.Repeat("x", 71), "1 to 70 characters"},
		{"", "1 to 70 characters"},
		{"Kari \xff", "not valid UTF-8"},
		{"K\xc3", "not valid UTF-8"},
	} {
		err := newCustomer(tt.name).validate()
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve, "%q", tt.name)
		assert.Equal(t, "customerName", ve.Field)
		assert.Contains(t, ve.Reason, tt.reason)
		assert.ErrorIs(t, err, client.ErrValidation)
	}
}
