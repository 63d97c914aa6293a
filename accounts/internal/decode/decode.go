// Package decode is the JSON decoder of package accounts' bank
// documents: it decodes an object member by member into a struct,
// keeping the members the struct does not name (or whose value does not
// fit) apart, and encodes such a struct with those members again. It
// follows encoding/json wherever that decides, and falls back to it for
// anything it does not follow.
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// Names are the JSON member names a document type decodes.
type Names struct {
	exact map[string]struct{}
	all   [][]byte
}

// NamesOf returns the member names of the exported, JSON-visible fields of
// the struct type T (fields of embedded structs included).
func NamesOf[T any]() func() *Names {
	return sync.OnceValue(func() *Names {
		n := &Names{exact: map[string]struct{}{}}
		n.add(reflect.TypeFor[T]())
		return n
	})
}

func (n *Names) add(t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			n.add(f.Type)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if _, dup := n.exact[name]; !dup {
			n.exact[name] = struct{}{}
			n.all = append(n.all, []byte(name))
		}
	}
}

// known reports whether encoding/json decodes a member called name into
// one of the fields: it matches names case-insensitively.
func (n *Names) known(name []byte) bool {
	if _, ok := n.exact[string(name)]; ok {
		return true
	}
	for _, k := range n.all {
		if bytes.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// IsNull reports whether data is the JSON null.
func IsNull(data []byte) bool { return bytes.Equal(bytes.TrimSpace(data), []byte("null")) }

// Object decodes the JSON object data into w, a pointer to a zero
// struct whose members are names, and returns the members w does not
// name. take, when not nil, is asked about every member first; the
// members it takes are returned apart, with their raw values (valid
// while data is). A named member whose value does not fit its field is
// returned among the others and leaves its field zero; only data that is
// not a JSON object fails. Each member returned is member(name, value).
// It decodes member by member (see plan.go), or with encoding/json where
// that is needed.
func Object[M any](data []byte, w any, names *Names, take func(name []byte) bool, member func(name string, value json.RawMessage) M) (extra, taken []M, err error) {
	if Memberwise {
		if extra, taken, ok := decodeFast(data, w, names, take, member); ok {
			return extra, taken, nil
		}
		reflect.ValueOf(w).Elem().SetZero()
	}
	return decodeObjectWhole(data, w, names, take, member)
}

// decodeObjectWhole is Object with encoding/json decoding the whole
// object.
func decodeObjectWhole[M any](data []byte, w any, names *Names, take func(name []byte) bool, member func(name string, value json.RawMessage) M) (extra, taken []M, err error) {
	err = json.Unmarshal(data, w)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return nil, nil, err
	}
	misfit := err != nil
	if misfit {
		// Decode member by member below, keeping those that fail.
		reflect.ValueOf(w).Elem().SetZero()
	}
	scanErr := forEachMember(data, func(key, value []byte) error {
		name := memberName(key)
		if take != nil && take(name) {
			taken = append(taken, member(string(name), value))
			return nil
		}
		if names.known(name) {
			if !misfit || decodeMember(w, key, value) {
				return nil
			}
		}
		extra = append(extra, member(string(name), Normal(value)))
		return nil
	})
	if scanErr != nil {
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, scanErr
	}
	return extra, taken, nil
}

// decodeMember decodes the single member key: value into w when it
// decodes without error on its own, and reports whether it did.
func decodeMember(w any, key, value []byte) bool {
	obj := make([]byte, 0, len(key)+len(value)+3)
	obj = append(append(append(append(append(obj, '{'), key...), ':'), value...), '}')
	trial := reflect.New(reflect.TypeOf(w).Elem()).Interface()
	if json.Unmarshal(obj, trial) != nil {
		return false
	}
	return json.Unmarshal(obj, w) == nil
}

// memberName returns the name of a quoted member key.
func memberName(key []byte) []byte {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	var s string
	if json.Unmarshal(key, &s) != nil {
		return inner
	}
	return []byte(s)
}

// Normal returns v as encoding/json writes a json.RawMessage: compact,
// with <, >, &, U+2028 and U+2029 escaped, so that a decoded value equals
// the value decoded from its encoding.
func Normal(v []byte) json.RawMessage {
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return json.RawMessage(bytes.Clone(v))
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes()
}

// NormalRaw normalises a json.RawMessage field after decoding (see
// Normal); nil stays nil.
func NormalRaw(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	return Normal(v)
}

// Encode encodes w, then appends the members of lists to the object, in
// order; member gives each one's name and value.
func Encode[M any](w any, member func(M) (string, json.RawMessage), lists ...[]M) ([]byte, error) {
	b, err := json.Marshal(w)
	n := 0
	for _, list := range lists {
		n += len(list)
	}
	if err != nil || n == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 64*n)
	buf.Write(b[:len(b)-1]) // drop the closing brace
	for _, list := range lists {
		for _, m := range list {
			name, value := member(m)
			if buf.Len() > 1 {
				buf.WriteByte(',')
			}
			k, err := json.Marshal(name)
			if err != nil {
				return nil, err
			}
			buf.Write(k)
			buf.WriteByte(':')
			if len(value) == 0 {
				buf.WriteString("null")
			} else {
				buf.Write(value)
			}
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Last returns the value of the last member of the object data that
// encoding/json would decode into a field called name (names compare
// case-insensitively), normalised; nil when there is none.
func Last(data []byte, name string) json.RawMessage {
	var v json.RawMessage
	_ = forEachMember(data, func(key, value []byte) error {
		if bytes.EqualFold(memberName(key), []byte(name)) {
			v = Normal(value)
		}
		return nil
	})
	return v
}

// errNotObject is returned for a document that is not a JSON object.
var errNotObject = errors.New("accounts: not a JSON object")

// forEachMember calls fn with the quoted key and the raw value of every
// member of the JSON object data, in order.
func forEachMember(data []byte, fn func(key, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errNotObject
		}
		end, ok := skipString(data, i)
		if !ok {
			return errNotObject
		}
		key := data[i:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errNotObject
		}
		i = skipSpace(data, i+1)
		end, ok = skipValue(data, i)
		if !ok {
			return errNotObject
		}
		if err := fn(key, data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return nil
		default:
			return errNotObject
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the JSON string starting at i.
func skipString(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(data), false
}

// skipValue returns the index after the JSON value starting at i.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return end, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(data), false
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j, j > i
		}
		j++
	}
	return j, j > i
}
