package accounts

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
)

// Member is one member of a JSON object of a bank document.
type Member struct {
	// Name is the member's name.
	Name string
	// Value is the member's JSON value, compact, with <, > and & escaped
	// as encoding/json writes them.
	Value json.RawMessage
}

// Extra holds the members of a bank document that its Go type does not
// name, in the order the bank sent them: members of a later version of
// the Berlin Group interface, or a bank's own additions. A member the type
// names but whose value does not fit the field (a number where the
// interface has a string, an unreadable date) is kept here too, and the
// field stays zero, so that one odd member never fails a whole answer
// (docs/design.md section 4). Encoding the document writes these members
// back after the named ones.
type Extra []Member

// Get returns the value of the first member called name (compared
// exactly) and whether there is one.
func (e Extra) Get(name string) (json.RawMessage, bool) {
	for _, m := range e {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// Decode decodes the value of the first member called name into v. It
// reports whether there is such a member.
func (e Extra) Decode(name string, v any) (bool, error) {
	raw, ok := e.Get(name)
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

// memberNames are the JSON member names a document type decodes.
type memberNames struct {
	exact map[string]struct{}
	all   [][]byte
}

// namesOf returns the member names of the exported, JSON-visible fields of
// the struct type T (fields of embedded structs included).
func namesOf[T any]() func() *memberNames {
	return sync.OnceValue(func() *memberNames {
		n := &memberNames{exact: map[string]struct{}{}}
		n.add(reflect.TypeFor[T]())
		return n
	})
}

func (n *memberNames) add(t reflect.Type) {
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
func (n *memberNames) known(name []byte) bool {
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

// isNull reports whether data is the JSON null.
func isNull(data []byte) bool { return bytes.Equal(bytes.TrimSpace(data), []byte("null")) }

// decodeObject decodes the JSON object data into w, a pointer to a zero
// struct whose members are names, and returns the members w does not
// name. take, when not nil, is asked about every member first; the
// members it takes are returned apart, with their raw values (valid
// while data is). A named member whose value does not fit its field is
// returned among the others and leaves its field zero; only data that is
// not a JSON object fails. It decodes member by member (see
// wireplan.go), or with encoding/json where that is needed.
func decodeObject(data []byte, w any, names *memberNames, take func(name []byte) bool) (extra, taken Extra, err error) {
	if memberwise {
		if extra, taken, ok := decodeFast(data, w, names, take); ok {
			return extra, taken, nil
		}
		reflect.ValueOf(w).Elem().SetZero()
	}
	return decodeObjectWhole(data, w, names, take)
}

// decodeObjectWhole is decodeObject with encoding/json decoding the whole
// object.
func decodeObjectWhole(data []byte, w any, names *memberNames, take func(name []byte) bool) (extra, taken Extra, err error) {
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
			taken = append(taken, Member{Name: string(name), Value: value})
			return nil
		}
		if names.known(name) {
			if !misfit || decodeMember(w, key, value) {
				return nil
			}
		}
		extra = append(extra, Member{Name: string(name), Value: normalJSON(value)})
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

// normalJSON returns v as encoding/json writes a json.RawMessage: compact,
// with <, >, &, U+2028 and U+2029 escaped, so that a decoded value equals
// the value decoded from its encoding.
func normalJSON(v []byte) json.RawMessage {
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return json.RawMessage(bytes.Clone(v))
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes()
}

// normalRaw normalises a json.RawMessage field after decoding (see
// normalJSON); nil stays nil.
func normalRaw(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	return normalJSON(v)
}

// encodeObject encodes w, then appends the members of more and extra to
// the object.
func encodeObject(w any, more []Member, extra Extra) ([]byte, error) {
	b, err := json.Marshal(w)
	if err != nil || len(more)+len(extra) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(len(b) + 64*(len(more)+len(extra)))
	buf.Write(b[:len(b)-1]) // drop the closing brace
	for _, list := range [][]Member{more, extra} {
		for _, m := range list {
			if buf.Len() > 1 {
				buf.WriteByte(',')
			}
			k, err := json.Marshal(m.Name)
			if err != nil {
				return nil, err
			}
			buf.Write(k)
			buf.WriteByte(':')
			if len(m.Value) == 0 {
				buf.WriteString("null")
			} else {
				buf.Write(m.Value)
			}
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// lastMember returns the value of the last member of the object data that
// encoding/json would decode into a field called name (names compare
// case-insensitively), normalised; nil when there is none.
func lastMember(data []byte, name string) json.RawMessage {
	var v json.RawMessage
	_ = forEachMember(data, func(key, value []byte) error {
		if bytes.EqualFold(memberName(key), []byte(name)) {
			v = normalJSON(value)
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

// shortestText returns the shortest text that money reads back as v's
// number: its plain form, the plain form without the leading zero of a
// value below 1 (".5"), or coefficient and exponent ("15e70"). It depends
// on the number only (1.50 and 1.5 give the same text), so encoding is
// stable.
func shortestText(v decimal.Decimal) string {
	coef, exp := v.Coefficient(), v.Exponent()
	if coef.Sign() == 0 {
		return "0"
	}
	ten, r := big.NewInt(10), new(big.Int)
	for {
		q, m := new(big.Int).QuoRem(coef, ten, r)
		if m.Sign() != 0 {
			break
		}
		coef, exp = q, exp+1
	}
	text := coef.String() + "e" + strconv.Itoa(int(exp))
	if exp >= -maxPrintExponent && exp <= maxPrintExponent {
		plain := decimal.NewFromBigInt(coef, exp).String()
		short := plain
		if rest, ok := strings.CutPrefix(plain, "0."); ok {
			short = "." + rest
		} else if rest, ok := strings.CutPrefix(plain, "-0."); ok {
			short = "-." + rest
		}
		for _, c := range []string{short, plain} {
			if len(c) <= len(text) {
				text = c
			}
		}
	}
	return text
}

// maxPrintExponent bounds the exponent of a value printed in full: a
// larger one would take a long time and much memory to print.
const maxPrintExponent = 64

// docAmount is a money.Amount in a bank document. It decodes as
// money.Amount does and encodes even an amount that money's request-side
// rules refuse (an unknown currency, more fraction digits than the
// currency has), so that every decoded document can be encoded again;
// omitzero leaves out an absent amount.
type docAmount money.Amount

// IsZero reports an absent amount.
func (a docAmount) IsZero() bool { return money.Amount(a).IsZero() }

// UnmarshalJSON decodes as [money.Amount] does. An unreadable amount
// keeps the bank's text in the form encoding/json writes it back, so that
// it decodes to the same amount again.
func (a *docAmount) UnmarshalJSON(data []byte) error {
	m := (*money.Amount)(a)
	if err := m.UnmarshalJSON(data); err != nil || m.Raw() == "" {
		return err
	}
	return m.UnmarshalJSON(normalJSON(data))
}

// MarshalJSON writes the amount as money does, or, when money refuses it,
// the value in the shortest text money reads back as the same number.
func (a docAmount) MarshalJSON() ([]byte, error) {
	if b, err := money.Amount(a).MarshalJSON(); err == nil {
		return b, nil
	}
	text := shortestText(a.Value)
	var b bytes.Buffer
	b.WriteString(`{"amount":`)
	amt, _ := json.Marshal(text)
	b.Write(amt)
	b.WriteString(`,"currency":`)
	cur, err := json.Marshal(a.Currency)
	if err != nil {
		return nil, err
	}
	b.Write(cur)
	b.WriteByte('}')
	return b.Bytes(), nil
}
