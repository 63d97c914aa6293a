package emulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The bounds of a JSON text checked before it is decoded, one scanner for
// the two doors that take mock data in bulk: the control API's
// arguments (scanControlArgs) and the bodies of the mock-data operations
// (scanMockBody). Each door words what the scanner finds in its own form.

// jsonBounds are the bounds scanJSON checks.
type jsonBounds struct {
	// values bounds the values in the text's arrays, at any depth,
	// together (an object's keys are not counted), so that a small body
	// ("[{},{},...]" is 3 bytes a value) cannot unfold into many entries.
	values int
	// depth bounds the nesting of objects and arrays.
	depth int
	// text bounds every key, string and number, in characters, and
	// textOf the values of some keys (in lower case) further; 0: texts
	// are not checked here.
	text   int
	textOf map[string]int
	// unique refuses a key an object holds twice, matched without
	// regard to case as the decoder matches keys to fields: the decoder
	// would keep the last and drop the other without a word.
	unique bool
}

// overKind is the bound a JSON text passed.
type overKind uint8

const (
	overValues overKind = iota // more values in its arrays than jsonBounds.values
	overDepth                  // nested deeper than jsonBounds.depth
	overKey                    // a key longer than jsonBounds.text
	overText                   // a string or number longer than its bound
	overDupKey                 // a key its object holds twice (jsonBounds.unique)
)

// jsonOver is the first bound scanJSON found passed: which, at which
// value (its path, as scanPath names it) and the bound.
type jsonOver struct {
	kind  overKind
	path  string
	limit int
}

// scanFrame is an open object or array of the text.
type scanFrame struct {
	array   bool
	keyNext bool            // an object: its next token is a key
	key     string          // an object: the key of its current value
	index   int             // an array: the values seen
	keys    map[string]bool // an object, with jsonBounds.unique: its keys, folded
}

// scanJSON checks the JSON text b against bd before it is decoded and
// returns the first bound it passes, nil for none. It reads tokens only
// (no value is built) and stops at the first bound passed; text that is
// not JSON ends the scan where it stops being JSON, and decoding then
// says what is wrong.
func scanJSON(b []byte, bd jsonBounds) *jsonOver {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var open []scanFrame
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		d, delim := tok.(json.Delim)
		if delim && (d == ']' || d == '}') {
			open = open[:len(open)-1]
			continue
		}
		var top *scanFrame
		if len(open) > 0 {
			top = &open[len(open)-1]
		}
		if top != nil && top.keyNext {
			k, _ := tok.(string)
			top.key, top.keyNext = k, false
			if bd.text > 0 && utf8.RuneCountInString(k) > bd.text {
				return &jsonOver{kind: overKey, path: scanPath(open), limit: bd.text}
			}
			if bd.unique {
				folded := strings.ToLower(k)
				if top.keys[folded] {
					return &jsonOver{kind: overDupKey, path: scanPath(open)}
				}
				if top.keys == nil {
					top.keys = map[string]bool{}
				}
				top.keys[folded] = true
			}
			continue
		}
		if top != nil && top.array {
			top.index++
			if n++; n > bd.values {
				return &jsonOver{kind: overValues, path: scanPath(open), limit: bd.values}
			}
		} else if top != nil {
			top.keyNext = true // the value read, a key comes next
		}
		var text string
		switch v := tok.(type) {
		case json.Delim:
			if len(open) >= bd.depth {
				return &jsonOver{kind: overDepth, path: scanPath(open), limit: bd.depth}
			}
			open = append(open, scanFrame{array: v == '[', keyNext: v == '{'})
			continue
		case string:
			text = v
		case json.Number:
			text = string(v)
		default:
			continue
		}
		if bd.text == 0 {
			continue
		}
		limit := bd.text
		for i := len(open) - 1; i >= 0; i-- {
			if !open[i].array {
				limit = cmp.Or(bd.textOf[strings.ToLower(open[i].key)], bd.text)
				break
			}
		}
		if utf8.RuneCountInString(text) > limit {
			return &jsonOver{kind: overText, path: scanPath(open), limit: limit}
		}
	}
}

// maxMockValues bounds the values in the arrays of one mock-data
// request's body together (transactions, engagements, their roles): the
// bank's answer to a request holds every transaction it created, and a
// body of a megabyte holds hundreds of thousands of empty entries. More
// are sent in several requests, or seeded (Controls.Seed).
const maxMockValues = 10_000

// scanMockBody checks the body of a mock-data operation before it is
// decoded (scanJSON): at most maxMockValues values in its arrays
// together and nesting of at most maxControlDepth; a body past them is
// refused, 400 FORMAT_ERROR naming the first value past the bound. Its
// texts are checked field by field when it is built (mockbuild.go), each
// against its own bound.
func scanMockBody(b []byte) error {
	o := scanJSON(b, jsonBounds{values: maxMockValues, depth: maxControlDepth})
	switch {
	case o == nil:
		return nil
	case o.kind == overValues:
		return errFormat(o.path, "The body holds more than %d entries in its arrays together (transactions, engagements, roles): send them in several requests.", o.limit)
	}
	return errFormat(o.path, "The body nests deeper than %d objects and arrays.", o.limit)
}

// decodeMock decodes the body of a mock-data operation into v, after
// scanMockBody.
func (c *call) decodeMock(v any) error {
	if err := scanMockBody(c.body); err != nil {
		return err
	}
	return c.decode(v)
}
