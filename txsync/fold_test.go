package txsync

import (
	"strings"
	"testing"
)

// foldText gives two texts the same form exactly when the comparison it
// stands for (strings.EqualFold of the texts with their runs of space
// made one space) says they are equal.
func TestFoldTextIsEqualFold(t *testing.T) {
	texts := []string{"", " ", "kiwi", "KIWI", "Kiwi  Storo", " kiwi storo ", "\u212aiwi", "Kiwi", "ß", "ẞ", "ss",
		"σ", "Σ", "ς", "ǅ", "ǆ", "Ǆ", "\xff", "\xfe", "\ufffd", "İ", "i", "I", "ı", "a\tb", "a b", "ab"}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, a := range texts {
		for _, b := range texts {
			if want, got := strings.EqualFold(norm(a), norm(b)), foldText(a) == foldText(b); got != want {
				t.Errorf("%q %q: same form %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
