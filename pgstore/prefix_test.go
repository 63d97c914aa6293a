package pgstore

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// prefixEnd bounds exactly the strings with the prefix, in byte order.
func FuzzPrefixEnd(f *testing.F) {
	for _, seed := range [][2]string{{"p/", "p/a"}, {"p", "q"}, {"a\U0010FFFF", "a\U0010FFFFz"}, {"\uD7FF", "\uE000"}, {"", "x"}, {"é", "ê"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, prefix, s string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(s) {
			return
		}
		end, ok := prefixEnd(prefix)
		if !ok {
			assert.Empty(t, strings.Trim(prefix, "\U0010FFFF"), "only an empty (or all-maximal) prefix has no end")
			return
		}
		assert.True(t, utf8.ValidString(end), "the end is valid text for the database")
		inRange := s >= prefix && s < end
		assert.Equal(t, strings.HasPrefix(s, prefix), inRange, "prefix %q end %q s %q", prefix, end, s)
		assert.True(t, strings.HasPrefix(prefix+s, prefix) && prefix+s < end)
	})
}
