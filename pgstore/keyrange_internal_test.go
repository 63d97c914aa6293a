package pgstore

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// keyRange selects exactly the keys that start with a prefix, taken as
// bytes: also a prefix cut short in the middle of a character, or not
// UTF-8 at all (then no key).
func FuzzKeyRange(f *testing.F) {
	for _, seed := range [][2]string{{"p/\xc3", "p/é"}, {"p/\xe0", "p/\u0800"}, {"p/\xed", "p/\ud7ff"}, {"p/\xf0", "p/\U00010000"},
		{"p/\xf4\x8f", "p/\U0010FFFF"}, {"p/\xf4", "p/\U0010FFFFa"}, {"\xef\xbf", "\uFFFD"}, {"p/\x00", "p/"}, {"p/\xff", "p/"}, {"p/\xc3a", "p/é"}, {"", "x"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, prefix, key string) {
		if !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
			return // no key
		}
		head, from, upper, bounded, ok := keyRange(prefix)
		selected := ok && strings.HasPrefix(key, head) && key >= from && (!bounded || key < upper)
		if want := strings.HasPrefix(key, prefix); selected != want {
			t.Errorf("keyRange(%q) = %q, %q, %q, %v, %v selects %q: %v, want %v", prefix, head, from, upper, bounded, ok, key, selected, want)
		}
		if ok && (!utf8.ValidString(head) || !utf8.ValidString(from) || !utf8.ValidString(upper)) {
			t.Errorf("keyRange(%q) = %q, %q, %q: not text for the database", prefix, head, from, upper)
		}
	})
}
