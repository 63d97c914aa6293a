package rules

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/emoji"
)

// The emulator's check, read off uniseg's grapheme rules, and the SDK's
// table, generated from emoji-data.txt, must agree on every code point:
// the SDK refuses before sending what the emulator (like the bank) would
// refuse, and nothing else.
func TestAgreesWithSDK(t *testing.T) {
	var pictographic, differ int
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are no characters
		}
		want := unicode.Is(emoji.ExtendedPictographic, r)
		if want {
			pictographic++
		}
		if Pictographic(r) != want {
			differ++
			if differ < 10 {
				t.Errorf("%U: emulator says %v, the SDK's table %v", r, !want, want)
			}
		}
		if r <= 0x10FFFF && Refused(r) != emoji.Refused(r) {
			t.Fatalf("%U: emulator refuses %v, the SDK %v", r, Refused(r), emoji.Refused(r))
		}
	}
	require.Zero(t, differ)
	require.Greater(t, pictographic, 3000) // the property is not empty
}

func TestRefused(t *testing.T) {
	for _, r := range []rune{'☕', '✅', '❤', '™', '😀', 0x1F600, 0x10000} {
		require.True(t, Refused(r), "%U", r)
	}
	for _, r := range []rune{'a', 'æ', 'Ø', '©', '®', '€', 0x0301, 0xFE0F, 0x200D, '\n'} {
		require.False(t, Refused(r), "%U", r)
	}
	require.Equal(t, 3, Index("abc☕"))
	require.Equal(t, -1, Index("Acme® AS, Bjørn"))
}
