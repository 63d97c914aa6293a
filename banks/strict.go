package banks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// maxJSONDepth bounds the nesting of a directory file: the form has three
// levels, and a deeper file is refused before it is decoded.
const maxJSONDepth = 16

// checkJSON refuses what encoding/json would take silently in a
// directory file: a member given twice in one object (encoding/json keeps
// the last, and matches names in any case, so "banks" and "Banks" are one
// member) and anything but white space after the first JSON value.
func checkJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkJSON(dec, "", 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("more than one JSON value: the file must hold one object")
	}
	return nil
}

// walkJSON reads one JSON value from dec, refusing a member twice in an
// object; at names where the value is.
func walkJSON(dec *json.Decoder, at string, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			if first, ok := seen[foldName(k)]; ok {
				return fmt.Errorf("member %q given twice in %s (as %q and %q)", k, where(at), first, k)
			}
			seen[foldName(k)] = k
			if err := walkJSON(dec, at+"."+k, depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkJSON(dec, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
	}
	return err
}

// where names a position for an error: the top-level object, or a path
// such as .banks[2].
func where(at string) string {
	if at == "" {
		return "the top-level object"
	}
	return at
}

// foldName is the key under which encoding/json matches a member name:
// each rune replaced by the smallest of its simple case folds, so that
// names equal under strings.EqualFold fold to one.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}
