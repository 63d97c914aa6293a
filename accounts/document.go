package accounts

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts/internal/decode"
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

// The decoding itself is package decode's; these name it for the
// documents of this package, whose unnamed members are Members.

// newMember is the Member decode keeps.
func newMember(name string, value json.RawMessage) Member { return Member{Name: name, Value: value} }

// memberOf is the name and value of m, for decode.Encode.
func memberOf(m Member) (string, json.RawMessage) { return m.Name, m.Value }

// namesOf returns the member names the struct type T decodes.
func namesOf[T any]() func() *decode.Names { return decode.NamesOf[T]() }

// isNull reports whether data is the JSON null.
func isNull(data []byte) bool { return decode.IsNull(data) }

// decodeObject is [decode.Object] keeping Members.
func decodeObject(data []byte, w any, names *decode.Names, take func(name []byte) bool) (extra, taken Extra, err error) {
	return decode.Object(data, w, names, take, newMember)
}

// encodeObject is [decode.Encode] of w with the members of more and extra.
func encodeObject(w any, more []Member, extra Extra) ([]byte, error) {
	return decode.Encode(w, memberOf, more, extra)
}

// normalJSON is [decode.Normal].
func normalJSON(v []byte) json.RawMessage { return decode.Normal(v) }

// normalRaw is [decode.NormalRaw].
func normalRaw(v json.RawMessage) json.RawMessage { return decode.NormalRaw(v) }

// lastMember is [decode.Last].
func lastMember(data []byte, name string) json.RawMessage { return decode.Last(data, name) }

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
