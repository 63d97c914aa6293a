package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/pathseg"
)

// ErrUnusableAnswer matches a 2xx answer to a call that is not repeatable
// whose body does not say what was done: empty, null, not JSON, or without
// the member that identifies the created resource. It always comes inside
// an [ErrOutcomeUnknown].
var ErrUnusableAnswer = errors.New("client: answer unusable")

// ErrAmbiguousAnswer matches a 2xx answer decoded into a struct whose
// JSON object names a member at its top level in two cases
// ("transactionStatus" and "TransactionStatus"): encoding/json matches
// names whatever their case, the last one winning, so the result would
// hold the value of a member the interface does not name in place of
// the one it does. Which one the bank meant is not known. For a request
// that is not repeatable it comes inside an [ErrOutcomeUnknown].
var ErrAmbiguousAnswer = errors.New("client: the answer names a member in two cases")

// readAnswer reads a 2xx body once: it decodes it into out (when out is
// not nil and the body not empty), which checks that it is JSON on the
// way, and reads the member resultID from the same bytes without decoding
// them again. With strict (a call that is not repeatable) the body must
// be JSON other than null, and, when resultID is set, an object carrying
// resultID as a non-empty string, and no member of that name in another
// case (see topMember); unusable says what is wrong. decodeErr is out's
// decoding error.
func readAnswer(body []byte, resultID, under string, strict bool, out any) (id string, unusable, decodeErr error) {
	body = bytes.TrimSpace(body)
	if strict {
		switch {
		case len(body) == 0:
			return "", fmt.Errorf("%w: empty body", ErrUnusableAnswer), nil
		case string(body) == "null":
			return "", fmt.Errorf("%w: null", ErrUnusableAnswer), nil
		}
	}
	valid := false
	if out != nil && len(body) > 0 {
		if decodeErr = decodeAnswer(body, false, out); decodeErr != nil {
			var syntax *json.SyntaxError
			if strict && errors.As(decodeErr, &syntax) {
				return "", fmt.Errorf("%w: not JSON", ErrUnusableAnswer), decodeErr
			}
		} else {
			valid = true
			if intoStruct(out) && foldedTwice(body) {
				if strict {
					return "", fmt.Errorf("%w: %w", ErrUnusableAnswer, ErrAmbiguousAnswer), nil
				}
				return "", nil, ErrAmbiguousAnswer
			}
		}
	}
	if !strict {
		return "", nil, decodeErr
	}
	if !valid && !json.Valid(body) {
		return "", fmt.Errorf("%w: not JSON", ErrUnusableAnswer), decodeErr
	}
	if resultID == "" {
		return "", nil, decodeErr
	}
	raw, isObject, ambiguous := topMemberFold(body, resultID)
	switch {
	case !isObject:
		return "", fmt.Errorf("%w: not a JSON object", ErrUnusableAnswer), decodeErr
	case ambiguous:
		// The result's field holds the last of the members named
		// resultID in any case (encoding/json): which id the answer
		// gives is not clear, and the Hook must not get another one.
		return "", fmt.Errorf("%w: %s named in another case", ErrUnusableAnswer, resultID), decodeErr
	}
	if len(raw) == 0 && under != "" {
		// No member: the id the answer's links give, if any.
		if id = idFromLinks(body, under); id != "" {
			// Bounded as the member is: IDUnder refuses what no path
			// can carry, not a C1 control or U+FFFD.
			if err := answerIDProblem(resultID, id); err != nil {
				return "", err, decodeErr
			}
			return id, nil, decodeErr
		}
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("%w: no %s", ErrUnusableAnswer, resultID), decodeErr
	}
	if plainString(raw) {
		id = string(raw[1 : len(raw)-1])
	} else {
		id = unquote(raw)
	}
	if strings.TrimSpace(id) == "" {
		return "", fmt.Errorf("%w: no %s", ErrUnusableAnswer, resultID), decodeErr
	}
	if err := answerIDProblem(resultID, id); err != nil {
		return "", err, decodeErr
	}
	return id, nil, decodeErr
}

// answerIDProblem returns why id, the id a create's answer gives of the
// created resource (its member resultID, or its links), cannot be handed
// over as the resource's, as an error matching [ErrUnusableAnswer] that
// quotes nothing of it, or nil: the rule of [CheckID].
func answerIDProblem(resultID, id string) error {
	if len(id) > MaxIDLength {
		return fmt.Errorf("%w: %w", ErrUnusableAnswer, &ValueTooLongError{Field: resultID, Length: len(id), Max: MaxIDLength})
	}
	if id == "." || id == ".." {
		// A dot segment cannot name the resource in a path: nothing
		// could read or cancel it.
		return fmt.Errorf("%w: %s is a dot segment", ErrUnusableAnswer, resultID)
	}
	// Nor can an id the path rule refuses (pathseg.Problem: a control
	// character, spaces around it, not UTF-8), and one that holds
	// U+FFFD is not the bank's: encoding/json puts it in place of bytes
	// that are not UTF-8 (a body in ISO-8859-1, whatever its
	// Content-Type says) and of a lone surrogate escape. Handed over as
	// the created resource's, it would be another id than the bank's.
	if p := pathseg.Problem(id); p != "" {
		return fmt.Errorf("%w: %s %s", ErrUnusableAnswer, resultID, p)
	}
	if strings.ContainsRune(id, utf8.RuneError) {
		return fmt.Errorf("%w: %s is not UTF-8", ErrUnusableAnswer, resultID)
	}
	// The C1 controls (U+0080 to U+009F, CSI among them), which the path
	// rule leaves to escaping, are no character of an id either: such an
	// id would reach a journal, a log line or a terminal as the bank's.
	if strings.ContainsFunc(id, unicode.IsControl) {
		return fmt.Errorf("%w: %s contains a control character", ErrUnusableAnswer, resultID)
	}
	return nil
}

// decodeAnswer decodes the JSON body into out. A body already known to
// be valid JSON (valid) goes straight to out's UnmarshalJSON, if it has
// one, as encoding/json would pass it: json.Unmarshal would scan it twice
// more (to validate it, then to find its end) before calling the method.
// A body not known to be valid is checked once by json.Valid first.
func decodeAnswer(body []byte, valid bool, out any) error {
	if u, ok := out.(json.Unmarshaler); ok {
		if !valid && !json.Valid(body) {
			return json.Unmarshal(body, out) // its *json.SyntaxError
		}
		return u.UnmarshalJSON(bytes.TrimSpace(body))
	}
	return json.Unmarshal(body, out)
}

// topMember returns the value, as raw JSON, of the last member named name
// (exactly, as encoding/json's map decoding reads it) at the top level of
// body, and whether body is a JSON object at all. body is valid JSON; on
// anything else it returns without panicking. A member whose name is name
// in another case ("PAYMENTID") makes it return ambiguous, and no value:
// encoding/json decodes such a member into the struct field of name (the
// last of them winning), so the caller's result may hold another value
// than the exactly named member's.
func topMember(body []byte, name string) (raw []byte, isObject bool) {
	raw, isObject, ambiguous := topMemberFold(body, name)
	if ambiguous {
		return nil, isObject
	}
	return raw, isObject
}

// topMemberFold is topMember, saying whether a member named name in
// another case was there (ambiguous); raw is then the exactly named
// member's value, if any.
func topMemberFold(body []byte, name string) (raw []byte, isObject, ambiguous bool) {
	isObject = topMembers(body, func(key, value []byte) bool {
		switch exact, folded := keyIs(key, name); {
		case exact:
			raw = value
		case folded:
			ambiguous = true
		}
		return true
	})
	return raw, isObject, ambiguous
}

// topMembers calls member with the key (a JSON string, quotes included)
// and the value of each member at the top level of body, in order, while
// it returns true, and reports whether body is a JSON object at all.
// body is valid JSON; on anything else it stops without panicking. The
// one walk of an answer's members (topMemberFold, foldedTwice).
func topMembers(body []byte, member func(key, value []byte) bool) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	for i++; i < len(body); {
		i = skipSpace(body, i)
		if i >= len(body) || body[i] == '}' {
			break
		}
		if body[i] == ',' {
			i++
			continue
		}
		kEnd := endOfValue(body, i)
		key := body[i:kEnd]
		if i = skipSpace(body, kEnd); i >= len(body) || body[i] != ':' {
			break
		}
		i = skipSpace(body, i+1)
		vEnd := endOfValue(body, i)
		if vEnd <= i {
			break
		}
		if !member(key, body[i:vEnd]) {
			break
		}
		i = vEnd
	}
	return true
}

// keyIs reports whether the JSON string key is name (exact), or is name
// in another case as encoding/json matches a struct field's name
// (folded: bytes.EqualFold).
func keyIs(key []byte, name string) (exact, folded bool) {
	if len(key) < 2 || key[0] != '"' {
		return false, false
	}
	k := key[1 : len(key)-1]
	if !plainString(key) {
		u := unquote(key)
		if u == "" {
			return false, false
		}
		k = []byte(u)
	}
	if string(k) == name {
		return true, false
	}
	return false, bytes.EqualFold(k, []byte(name))
}

// unquote decodes the JSON string raw, or returns "" when it is not one.
// A function of its own, so that only this rare path (an id with an
// escape) pays for the variable encoding/json writes into.
func unquote(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// plainString reports whether the JSON string s means its bytes between
// the quotes: no escape, valid UTF-8 (encoding/json replaces invalid
// bytes with U+FFFD).
func plainString(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endOfValue returns the index just after the JSON value starting at
// b[i]: a string, an object or array (nested values skipped, strings
// minded), or a literal or number.
func endOfValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	depth, inString, escaped := 0, false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if depth == 0 {
					return j + 1
				}
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return j
			}
			if depth--; depth == 0 {
				return j + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':'):
			return j
		}
	}
	return len(b)
}

// idFromLinks is the id the _links member of body gives of a resource
// created under path ([Links.IDUnder]), "" when none.
func idFromLinks(body []byte, path string) string {
	raw, isObject := topMember(body, "_links")
	if !isObject || len(raw) == 0 {
		return ""
	}
	// Decoded without Link's bound on an href (MaxHrefLength): a long
	// link beside the one naming the id (an scaRedirect) fails the
	// caller's decoding, not the id the answer gives (readAnswer bounds
	// the id itself).
	var plain map[string]struct {
		Href string `json:"href"`
	}
	if json.Unmarshal(raw, &plain) != nil {
		return ""
	}
	links := make(Links, len(plain))
	for name, l := range plain {
		links[name] = Link{Href: l.Href}
	}
	return links.IDUnder(path)
}

// intoStruct reports whether out, a pointer, decodes a JSON object as a
// struct does, by names matched whatever their case: a map keeps every
// spelling apart, so it is never ambiguous.
func intoStruct(out any) bool {
	t := reflect.TypeOf(out)
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// foldedTwice reports whether the JSON object body (valid JSON) names a
// member at its top level in two spellings that encoding/json matches
// alike (bytes.EqualFold): readAnswer's ErrAmbiguousAnswer. The same name
// twice, exactly, is not ambiguous in this sense: encoding/json and
// topMember both take the last. A few members are compared pairwise; more
// by their folded names (the form encoding/json folds names to), so that
// an answer of many members costs one pass.
func foldedTwice(body []byte) bool {
	const pairwise = 16
	var small [pairwise][]byte
	keys := small[:0]
	var folded map[string][]byte
	twice := false
	topMembers(body, func(key, _ []byte) bool {
		if len(key) < 2 || key[0] != '"' {
			return true
		}
		name := key[1 : len(key)-1]
		if !plainString(key) {
			name = []byte(unquote(key))
		}
		if folded == nil {
			for _, k := range keys {
				if !bytes.Equal(k, name) && bytes.EqualFold(k, name) {
					twice = true
					return false
				}
			}
			if len(keys) < pairwise {
				keys = append(keys, name)
				return true
			}
			folded = make(map[string][]byte, 2*pairwise)
			for _, k := range keys {
				folded[string(foldName(k))] = k
			}
		}
		f := string(foldName(name))
		if k, ok := folded[f]; ok && !bytes.Equal(k, name) {
			twice = true
			return false
		}
		folded[f] = name
		return true
	})
	return twice
}

// foldName is name folded as encoding/json folds the names it matches
// (its appendFoldedName): ASCII letters in upper case, every other rune
// as unicode.ToUpper(unicode.ToLower(r)), so that two names fold alike
// exactly when bytes.EqualFold holds.
func foldName(name []byte) []byte {
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return out
}
