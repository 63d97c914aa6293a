package tpp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/tpp"
)

func TestValidateEmail(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		"tpp.contact@tpp.example.com", "psd2-operations@tpp.example", "a+b_c@x-y.no", "O'Brien@bank.example",
		strings.Repeat("a", 64) + "@tpp.example", "x@" + strings.Repeat("d", 63) + ".example",
	} {
		assert.NoError(t, tpp.ValidateEmail(ok), ok)
	}
	for name, bad := range map[string]string{
		"empty":            "",
		"no at":            "tpp.example.com",
		"no domain":        "contact@",
		"no local part":    "@tpp.example",
		"display name":     "TPP <contact@tpp.example>",
		"brackets":         "<contact@tpp.example>",
		"space":            "contact @tpp.example",
		"surrounding":      " contact@tpp.example",
		"non-ASCII":        "kontakt@tpp.bø.example",
		"emoji":            "😀@tpp.example",
		"single label":     "contact@localhost",
		"address literal":  "contact@[192.0.2.1]",
		"numeric TLD":      "contact@192.0.2.1",
		"hyphen label":     "contact@-tpp.example",
		"empty label":      "contact@tpp..example",
		"long local part":  strings.Repeat("a", 65) + "@tpp.example",
		"long label":       "x@" + strings.Repeat("d", 64) + ".example",
		"longer than 254":  strings.Repeat("a", 60) + "@" + strings.Repeat(strings.Repeat("d", 60)+".", 4) + "example",
		"two at":           "a@b@tpp.example",
		"control":          "contact\n@tpp.example",
		"comment":          "contact(x)@tpp.example",
		"quoted with at":   `"a@b"@tpp.example`,
		"trailing dot":     "contact@tpp.example.",
		"unbalanced quote": `"contact@tpp.example`,
	} {
		err := tpp.ValidateEmail(bad)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, client.ErrValidation, name)
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "email", ve.Field, name)
		assert.NotEmpty(t, ve.Reason, name)
	}
}

// FuzzValidateEmail: whatever the input, ValidateEmail does not panic,
// and an address it accepts is printable ASCII of at most 254 characters
// with exactly one unquoted @.
func FuzzValidateEmail(f *testing.F) {
	for _, s := range []string{"tpp.contact@tpp.example.com", "", "a@b", `"a b"@c.d`, "x@[1.2.3.4]", "a@b.c."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tpp.ValidateEmail(s) != nil {
			return
		}
		if len(s) > 254 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			t.Fatalf("accepted %q", s)
		}
		if !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
			t.Fatalf("accepted %q without a dotted domain", s)
		}
	})
}
