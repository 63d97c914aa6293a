package emulator

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// A tppMessages text is at most 512 characters (docs/interface.md
// sections 7 and 8): a longer one is cut at 512 runes, never inside a
// character, and one of 512 multi-byte characters is kept whole.
func TestErrorTextCutAtCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{"ascii short", "Bad field.", "Bad field."},
		{"512 two-byte characters kept", strings.Repeat("Ø", 512), strings.Repeat("Ø", 512)},
		{"600 two-byte characters cut", strings.Repeat("Ø", 600), strings.Repeat("Ø", 512)},
		{"cut falls on a character", strings.Repeat("x", 511) + "Øre", strings.Repeat("x", 511) + "Ø"},
		{"three-byte characters", strings.Repeat("€", 513), strings.Repeat("€", 512)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newError(http.StatusBadRequest, "FORMAT_ERROR", "%s", tt.text)
			assert.Equal(t, tt.want, e.msg.Text)
			assert.True(t, utf8.ValidString(e.msg.Text))
			assert.LessOrEqual(t, utf8.RuneCountInString(e.msg.Text), maxErrorText)
		})
	}
}
