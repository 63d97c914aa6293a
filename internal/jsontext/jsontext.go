// Package jsontext reads JSON text without encoding/json where the text is
// simple enough that the result is the same.
package jsontext

import "unicode/utf8"

// PlainString returns the text of the JSON string literal b when it has
// no escapes, no control characters and only valid UTF-8: the text
// encoding/json decodes it to, read without the decoder. It reports false
// for anything else, which the caller decodes with encoding/json.
func PlainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	for _, c := range inner {
		if c < ' ' || c == '\\' || c == '"' {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}
