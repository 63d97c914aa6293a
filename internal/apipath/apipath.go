// Package apipath builds the interface's request paths from ids, escaping
// each id as one path segment. It is the service packages' one way to put
// an id into a path.
package apipath

import (
	"fmt"
	"strings"
)

// Segment escapes s as one RFC 3986 path segment. Unlike
// url.PathEscape it keeps the sub-delimiters, so platform ids such as
// "enc!!abc=" stay as the bank wrote them.
func Segment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isPChar(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// Join builds a path such as "/v1/payments/<product>/<id>/status" from
// a prefix and segments, escaping each segment with [Segment].
func Join(prefix string, segments ...string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(prefix, "/"))
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(Segment(s))
	}
	return b.String()
}

func isPChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '.', '_', '~', // unreserved
		'!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', // sub-delims
		':', '@':
		return true
	}
	return false
}
