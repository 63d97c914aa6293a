package rules

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Field names are case-sensitive (docs/interface.md sections 2.4, 2.5 and
// 2.7 name each field exactly), but encoding/json matches an object key to
// a struct field case-insensitively: without the care below, a body with
// "CREDITORNAME" or {"PAYMENTIDS": [...]} would be accepted by the
// emulator and refused by the bank. Before a body is decoded into its Go
// type, DropMiscased removes every key that names one of the type's JSON
// fields in another case, so the key is what it is to the bank, an
// unknown field, ignored like every unknown field; when the field is
// required, the rule that checks it answers 400 FORMAT_ERROR naming it,
// and the emulator adds to that answer's text which key of the body was
// meant for it (MiscasedKey).

// jsonFields are the JSON field names of a struct type, as encoding/json
// sees them (tag name, else the Go name; fields of embedded structs
// promoted), each with the type its value decodes into.
type jsonFields struct {
	names []string
	types map[string]reflect.Type
}

// fieldCache holds the jsonFields of each struct type seen
// (reflect.Type → *jsonFields).
var fieldCache sync.Map

// unmarshalerType is json.Unmarshaler: a type implementing it reads its
// own JSON, so its keys are not the emulator's to check.
var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldsOf returns the JSON fields of the struct type t, cached.
func fieldsOf(t reflect.Type) *jsonFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*jsonFields)
	}
	f := &jsonFields{types: map[string]reflect.Type{}}
	collectFields(t, f, map[reflect.Type]bool{})
	actual, _ := fieldCache.LoadOrStore(t, f)
	return actual.(*jsonFields)
}

// collectFields adds the JSON fields of struct type t to f. A field of an
// outer struct hides a promoted one of the same name, as in encoding/json;
// seen stops a cycle of embedded pointers.
func collectFields(t reflect.Type, f *jsonFields, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if name == "" && et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := f.types[name]; !dup {
			f.names = append(f.names, name)
			f.types[name] = ft
		}
	}
	for _, et := range embedded {
		collectFields(et, f, seen)
	}
}

// match returns the type of the field named key exactly, or the name of
// the field key names in another case ("" when key names no field).
func (f *jsonFields) match(key string) (t reflect.Type, miscased string) {
	if t, ok := f.types[key]; ok {
		return t, ""
	}
	for _, n := range f.names {
		if strings.EqualFold(n, key) {
			return nil, n
		}
	}
	return nil, ""
}

// DropMiscased returns body without the object keys that name a JSON field
// of t (a struct, or a pointer, slice, array or map leading to structs,
// searched to any depth) in another case, and the paths of the keys
// dropped ("instructedAmount.Amount", "payments[0].CREDITORNAME"). The
// body comes back unchanged when nothing is dropped, or when it is not one
// JSON value, so the decoder's own answer to it stands.
func DropMiscased(body []byte, t reflect.Type) ([]byte, []string) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers written back as sent
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body, nil
	}
	var dropped []string
	walkMiscased(v, t, "", &dropped)
	if len(dropped) == 0 {
		return body, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body, nil
	}
	return out, dropped
}

// walkMiscased deletes from v (a value decoded into any) the keys that
// name a field of t in another case, adding their paths to dropped.
func walkMiscased(v any, t reflect.Type, path string, dropped *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		f := fieldsOf(t)
		for k, fv := range obj {
			ft, miscased := f.match(k)
			switch {
			case ft != nil:
				walkMiscased(fv, ft, JoinPath(path, k), dropped)
			case miscased != "":
				delete(obj, k)
				*dropped = append(*dropped, JoinPath(path, k))
			}
		}
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			return
		}
		for i, e := range arr {
			walkMiscased(e, t.Elem(), path+"["+strconv.Itoa(i)+"]", dropped)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, e := range obj {
			walkMiscased(e, t.Elem(), JoinPath(path, k), dropped)
		}
	}
}

// MiscasedKey returns the path of a key of body equal to path but for
// case, when body has no key at path itself; "" otherwise.
func MiscasedKey(body []byte, path string) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return ""
	}
	found, exact := "", false
	var walk func(v any, p string)
	walk = func(v any, p string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				kp := JoinPath(p, k)
				if len(kp) > len(path) || !strings.EqualFold(kp, path[:len(kp)]) {
					continue // not on the way to path
				}
				switch {
				case kp == path:
					exact = true
				case len(kp) == len(path):
					found = kp
				default:
					walk(e, kp)
				}
			}
		case []any:
			for i, e := range v {
				walk(e, p+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	walk(v, "")
	if exact {
		return ""
	}
	return found
}

// JoinPath is the path of field inside prefix ("a" and "b" give "a.b";
// "" and "b" give "b").
func JoinPath(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// MiscasedHint returns the sentence the emulator adds to the text of a
// FORMAT_ERROR naming the field at path (such as "creditorName" or
// "payments[0].instructedAmount.amount") when body lacks that field while
// holding a key at that path written in another case ([MiscasedKey]); ""
// when path is "" or body has no such key.
func MiscasedHint(body []byte, path string) string {
	if path == "" || len(body) == 0 {
		return ""
	}
	key := MiscasedKey(body, path)
	if key == "" {
		return ""
	}
	return " The body has " + strconv.Quote(Clip(key)) + " instead: field names are case-sensitive."
}
