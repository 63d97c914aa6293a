// Package pathseg checks and escapes one path segment of the interface's
// request paths. It is the one place that rule lives: the client fills
// the path templates of operations with it, and package apipath builds
// the paths the client does not build itself.
package pathseg

import (
	"strings"
	"unicode/utf8"
)

// Problem says why id cannot be a path segment, or "" when it can: it is
// empty, a dot segment ("." or "..", which would change the path), holds
// a control character, is not UTF-8, or is blank or has spaces around it
// (no id of the interface has: enc!!<base64url>, UUIDs, digits; a copied
// id with a stray space would be sent as %20 and answered 404). A space
// inside an id is taken.
func Problem(id string) string {
	switch id {
	case "":
		return "required"
	case ".", "..":
		return "cannot be a dot segment"
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] == 0x7f {
			return "contains a control character"
		}
	}
	if !utf8.ValidString(id) {
		return "is not UTF-8"
	}
	switch strings.TrimSpace(id) {
	case "":
		return "is blank"
	case id:
	default:
		return "has leading or trailing spaces"
	}
	return ""
}

// Escape escapes s as one path segment: every byte but the RFC 3986
// pchars is percent-encoded, "/" included.
func Escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isPChar(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isPChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
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
