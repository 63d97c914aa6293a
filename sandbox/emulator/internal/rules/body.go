package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// CheckJSONBody returns the first violation of what every request body
// must be (docs/interface.md section 1.6): of type application/json
// (contentType is the Content-Type header; XML gets a message of its
// own), valid UTF-8, valid JSON, and free of characters the bank's
// downstream systems cannot take ([CheckCharacters]); nil when body is
// all of that.
func CheckJSONBody(contentType string, body []byte) *Violation {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		if strings.Contains(strings.ToLower(contentType), "xml") {
			return Format("Content-Type", "XML is not supported; send application/json.")
		}
		return Format("Content-Type", "The body must be application/json.")
	}
	if !utf8.Valid(body) {
		return Format("", "The body is not valid UTF-8.")
	}
	if !json.Valid(body) {
		return Format("", "The body is not valid JSON.")
	}
	return CheckCharacters(body)
}

// CheckCharacters refuses a character the downstream systems cannot
// process (docs/interface.md sections 1.6 and 7: "for example an emoji"):
// an Extended_Pictographic character (U+2705, U+2615, U+2764, ...) or any
// character outside the Basic Multilingual Plane, as [Refused] reads them
// off the Unicode grapheme rules. It looks at the decoded strings, every
// value and key of the JSON body, so a \ud83d\ude00 or \u2705 escape is
// caught too, and names the first one in path (keys in sorted order, so
// one body always gives the same answer).
func CheckCharacters(body []byte) *Violation {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return Format("", "The body is not valid JSON.")
	}
	if path, r, ok := findRefused(v, ""); ok {
		what := path
		if what == "" {
			what = "The body"
		}
		return Format(path, "%s holds %U, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane).", what, r)
	}
	return nil
}

// findRefused returns the path of the first string in v holding a
// character [Refused] reports, and that character. Map keys are visited
// in sorted order.
func findRefused(v any, path string) (string, rune, bool) {
	switch t := v.(type) {
	case string:
		if i := Index(t); i >= 0 {
			r, _ := utf8.DecodeRuneInString(t[i:])
			return path, r, true
		}
	case []any:
		for i, e := range t {
			if p, r, ok := findRefused(e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, r, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, r, ok := findRefused(k, JoinPath(path, k)); ok {
				return p, r, true
			}
			if p, r, ok := findRefused(t[k], JoinPath(path, k)); ok {
				return p, r, true
			}
		}
	}
	return "", 0, false
}

// DecodeJSON decodes the JSON body of a request into v, a pointer to a
// struct. Unknown fields are allowed, and a key naming a field of v in
// another case is one of them (field names are case-sensitive,
// docs/interface.md section 2.7; [DropMiscased]). An empty body is a
// [CodeFormat] violation, and so is a body that does not decode
// ([DecodeViolation]).
func DecodeJSON(body []byte, v any) *Violation {
	if len(body) == 0 {
		return Format("", "A JSON body is required.")
	}
	body, _ = DropMiscased(body, reflect.TypeOf(v))
	if err := json.Unmarshal(body, v); err != nil {
		return DecodeViolation(err)
	}
	return nil
}

// DecodeViolation names the error encoding/json gave decoding a body as
// a [CodeFormat] violation: at the field of a type mismatch, with the
// JSON type the field takes, when the decoder knows the field; at the
// whole body otherwise.
func DecodeViolation(err error) *Violation {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return Format("", "The body is not valid JSON.")
	}
	t := typeErr.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if typeErr.Field == "" {
		return Format("", "The body must be a JSON %s.", jsonKind(t.Kind()))
	}
	return Format(typeErr.Field, "%s must be a JSON %s.", typeErr.Field, jsonKind(t.Kind()))
}

// jsonKind names the JSON type a Go kind decodes from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value of another type"
}
