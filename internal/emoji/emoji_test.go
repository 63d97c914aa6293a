package emoji

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

func TestRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    rune
		want bool
	}{
		{"white heavy check mark U+2705", '\u2705', true},
		{"hot beverage U+2615", '\u2615', true},
		{"heavy black heart U+2764", '\u2764', true},
		{"copyright U+00A9 (ISO 8859-1)", '\u00a9', false},
		{"registered U+00AE (ISO 8859-1)", '\u00ae', false},
		{"double exclamation U+203C, the first pictograph above Latin-1", '\u203c', true},
		{"trade mark U+2122", '\u2122', true},
		{"grinning face U+1F600", '\U0001F600', true},
		{"reserved pictographic U+1FC00", '\U0001FC00', true},
		{"outside the BMP, not pictographic (U+10348 Gothic hwair)", '\U00010348', true},
		{"last BMP code point U+FFFF", '\uFFFF', false},
		{"ASCII letter", 'A', false},
		{"Norwegian ø", 'ø', false},
		{"Norwegian Å", 'Å', false},
		{"euro sign", '€', false},
		{"section sign", '§', false},
		{"digit", '7', false},
		{"hash sign (an emoji component, not pictographic)", '#', false},
		{"variation selector 16", '\uFE0F', false},
		{"replacement character", '\uFFFD', false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Refused(tt.r))
		})
	}
}

func TestIndex(t *testing.T) {
	t.Parallel()
	assert.Equal(t, -1, Index("Husleie for mars, Blåbærveien 7"))
	assert.Equal(t, -1, Index(""))
	assert.Equal(t, -1, Index("Acme® AS ©"), "ISO 8859-1 is text")
	assert.Equal(t, 4, Index("Acme™ AS"))
	assert.Equal(t, 5, Index("Kaffe☕ og kake"))
	assert.Equal(t, 3, Index("Ok ✅"))
	assert.Equal(t, 0, Index("😀"))
	assert.Equal(t, 2, Index("ø❤"), "byte index, after the two bytes of ø")
	assert.Equal(t, -1, Index("bad \xff byte"), "invalid UTF-8 is left to the caller")
}

// TestTableWellFormed checks the generated table the way package unicode
// needs it: ranges sorted, not overlapping, stride 1, and LatinOffset
// counting the Range16 entries within Latin-1.
func TestTableWellFormed(t *testing.T) {
	t.Parallel()
	tab := ExtendedPictographic
	assert.NotEmpty(t, UnicodeVersion)
	latin := 0
	var last rune = -1
	for _, r := range tab.R16 {
		assert.Equal(t, uint16(1), r.Stride)
		assert.LessOrEqual(t, r.Lo, r.Hi)
		assert.Greater(t, rune(r.Lo), last+1, "sorted, merged")
		last = rune(r.Hi)
		if r.Hi <= unicode.MaxLatin1 {
			latin++
		}
	}
	for _, r := range tab.R32 {
		assert.Equal(t, uint32(1), r.Stride)
		assert.LessOrEqual(t, r.Lo, r.Hi)
		assert.Greater(t, rune(r.Lo), last+1, "sorted, merged")
		assert.Greater(t, r.Lo, uint32(0xFFFF))
		last = rune(r.Hi)
	}
	assert.Equal(t, latin, tab.LatinOffset)
}
