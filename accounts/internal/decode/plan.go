package decode

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode"

	"github.com/tppkit/psd2/internal/jsontext"
)

// Decoding a document member by member. encoding/json hands an
// UnmarshalJSON method the bytes of its value only after scanning them
// (to find their end), and json.Unmarshal inside the method scans them
// again (to validate them) before decoding: a transaction inside a
// report inside an answer was scanned about eight times. Object
// therefore walks the members itself and decodes each into its field (a
// plan per wire type says which field and how), calling the field's own
// UnmarshalJSON directly, so that each level scans its bytes once.
//
// The plan follows encoding/json wherever it decides: a member decodes
// into the field encoding/json would pick, the same way. Anything the
// plan does not follow (a name that matches a field only case-
// insensitively, a member named twice, a value that does not fit its
// field, a document that is not well-formed) makes Object start
// again with encoding/json itself (decodeObjectWhole), so that these
// cases decode exactly as before.

// Memberwise turns decoding member by member on; tests of package
// accounts turn it off to compare with encoding/json.
var Memberwise = true

// fieldKind says how a member's value is decoded into its field.
type fieldKind int

const (
	// kindOther: json.Unmarshal of the value into a new value of the
	// field's type.
	kindOther fieldKind = iota
	// kindString: a plain string field (no methods of its own).
	kindString
	// kindUnmarshaler: the field's pointer implements json.Unmarshaler.
	kindUnmarshaler
	// kindUnmarshalerSlice: a slice whose element's pointer implements
	// json.Unmarshaler.
	kindUnmarshalerSlice
	// kindUnmarshalerPointer: a pointer that implements json.Unmarshaler
	// (to a type whose pointer is not one itself).
	kindUnmarshalerPointer
)

// wireField is a field of a wire type that members decode into.
type wireField struct {
	pos   int // its number in the plan, for duplicate detection
	index []int
	typ   reflect.Type
	kind  fieldKind
}

// wirePlan maps member names to the fields of a wire type.
type wirePlan struct {
	byName map[string]*wireField
	// whole: the type has a feature the plan does not follow (an embedded
	// pointer, a ",string" option, two fields encoding/json would not
	// choose between): decode with encoding/json.
	whole bool
}

var (
	plans           sync.Map // reflect.Type → *wirePlan
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planOf returns the plan of the struct type t.
func planOf(t reflect.Type) *wirePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*wirePlan)
	}
	p, _ := plans.LoadOrStore(t, buildPlan(t))
	return p.(*wirePlan)
}

// candidate is a field that a name could decode into.
type candidate struct {
	f      *wireField
	depth  int
	tagged bool
}

func buildPlan(t reflect.Type) *wirePlan {
	p := &wirePlan{byName: map[string]*wireField{}}
	cands := map[string][]candidate{}
	var walk func(t reflect.Type, index []int, depth int)
	walk = func(t reflect.Type, index []int, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			at := append(append([]int(nil), index...), i)
			if sf.Anonymous {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer || name != "" {
					p.whole = true
					return
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, at, depth+1)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if strings.Contains(","+opts+",", ",string,") || !validName(name) {
				p.whole = true
				return
			}
			tagged := name != ""
			if !tagged {
				name = sf.Name
			}
			f := &wireField{index: at, typ: sf.Type, kind: kindOf(sf.Type)}
			cands[name] = append(cands[name], candidate{f: f, depth: depth, tagged: tagged})
		}
	}
	walk(t, nil, 0)
	for name, cs := range cands {
		f, ok := dominant(cs)
		if !ok {
			p.whole = true
			continue
		}
		f.pos = len(p.byName)
		p.byName[name] = f
	}
	if len(p.byName) > 64 {
		p.whole = true // decodeFast tracks the fields in a uint64
	}
	return p
}

// dominant picks the field encoding/json decodes a name into among the
// candidates: the shallowest, or the one tagged among the shallowest.
func dominant(cs []candidate) (*wireField, bool) {
	top := cs[0].depth
	for _, c := range cs {
		top = min(top, c.depth)
	}
	var at []candidate
	for _, c := range cs {
		if c.depth == top {
			at = append(at, c)
		}
	}
	if len(at) == 1 {
		return at[0].f, true
	}
	var tagged []candidate
	for _, c := range at {
		if c.tagged {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) == 1 {
		return tagged[0].f, true
	}
	return nil, false
}

// validName reports whether encoding/json takes a tag's name as it is
// (the plan does not follow its fallback to the field's name); an empty
// name is the field's own.
func validName(name string) bool {
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func kindOf(t reflect.Type) fieldKind {
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unmarshalerType):
		return kindUnmarshaler
	case pt.Implements(textType) || t.Implements(unmarshalerType) || t.Implements(textType):
		return kindOther
	case t.Kind() == reflect.String:
		return kindString
	case t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Pointer && t.Implements(unmarshalerType):
		return kindUnmarshalerPointer
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Pointer &&
		reflect.PointerTo(t.Elem()).Implements(unmarshalerType) && !t.Implements(unmarshalerType):
		return kindUnmarshalerSlice
	}
	return kindOther
}

// decodeFast decodes the members of data into w following its plan. It
// reports false when a member needs encoding/json (see the comment at
// the top), with w and the results then in no particular state.
func decodeFast[M any](data []byte, w any, names *Names, take func(name []byte) bool, member func(name string, value json.RawMessage) M) (extra, taken []M, ok bool) {
	rv := reflect.ValueOf(w).Elem()
	plan := planOf(rv.Type())
	if plan.whole {
		return nil, nil, false
	}
	var seen uint64 // fields decoded, by pos
	err := forEachMember(data, func(key, value []byte) error {
		name := memberName(key)
		if take != nil && take(name) {
			taken = append(taken, member(string(name), value))
			return nil
		}
		f := plan.byName[string(name)]
		if f != nil && !names.known(name) {
			return errWhole
		}
		if f == nil {
			if names.known(name) {
				return errWhole
			}
			v, ok := compactJSON(value)
			if !ok {
				return errWhole
			}
			extra = append(extra, member(string(name), v))
			return nil
		}
		if seen&(1<<f.pos) != 0 {
			return errWhole
		}
		seen |= 1 << f.pos
		if !decodeField(rv.FieldByIndex(f.index), f, value) {
			return errWhole
		}
		return nil
	})
	return extra, taken, err == nil
}

// errWhole stops decodeFast: encoding/json decodes the document.
var errWhole = errors.New("decode with encoding/json")

// decodeField decodes value into the field v, as encoding/json would in
// the whole object, and reports whether it could.
func decodeField(v reflect.Value, f *wireField, value []byte) bool {
	switch f.kind {
	case kindString:
		if s, ok := jsontext.PlainString(value); ok {
			v.SetString(s)
			return true
		}
		if isNullLiteral(value) {
			return true
		}
	case kindUnmarshaler:
		return callUnmarshaler(v, value)
	case kindUnmarshalerSlice:
		return decodeSlice(v, value)
	case kindUnmarshalerPointer:
		// encoding/json leaves a null pointer nil and calls the method of a
		// new value for anything else.
		if isNullLiteral(value) {
			return true
		}
		p := reflect.New(f.typ.Elem())
		if !callUnmarshaler(p.Elem(), value) {
			return false
		}
		v.Set(p)
		return true
	}
	fresh := reflect.New(f.typ)
	if json.Unmarshal(value, fresh.Interface()) != nil {
		return false
	}
	v.Set(fresh.Elem())
	return true
}

// callUnmarshaler decodes value into v (zero) with its UnmarshalJSON. A
// value that is not an object or an array is checked first: the method
// may take it without looking.
func callUnmarshaler(v reflect.Value, value []byte) bool {
	if len(value) == 0 || (value[0] != '{' && value[0] != '[') && !json.Valid(value) {
		return false
	}
	return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(value) == nil
}

// decodeSlice decodes the array value into the slice v element by
// element; null leaves it nil and [] makes it empty, as encoding/json
// does.
func decodeSlice(v reflect.Value, value []byte) bool {
	if isNullLiteral(value) {
		v.SetZero()
		return true
	}
	out := reflect.MakeSlice(v.Type(), 0, 4)
	elem := reflect.New(v.Type().Elem()).Elem()
	err := forEachElement(value, func(e []byte) error {
		elem.SetZero()
		if !callUnmarshaler(elem, e) {
			return errWhole
		}
		out = reflect.Append(out, elem)
		return nil
	})
	if err != nil {
		return false
	}
	v.Set(out)
	return true
}

func isNullLiteral(value []byte) bool { return string(value) == "null" }

// compactJSON returns a valid JSON value as Normal does, and false for
// one that is not valid.
func compactJSON(value []byte) (json.RawMessage, bool) {
	if s, ok := jsontext.PlainString(value); ok && !strings.ContainsAny(s, "<>&\u2028\u2029") {
		return json.RawMessage(string(value)), true
	}
	if !json.Valid(value) {
		return nil, false
	}
	return Normal(value), true
}

// forEachElement calls fn with the raw value of every element of the JSON
// array data, in order.
func forEachElement(data []byte, fn func(value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for {
		end, ok := skipValue(data, i)
		if !ok {
			return errNotObject
		}
		if err := fn(data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == ']':
			return nil
		default:
			return errNotObject
		}
	}
}
