package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/bojanz/currency"
	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/internal/jsontext"
)

// Errors returned by [New], [Parse] and [Amount.Validate]. Match them with
// errors.Is; the returned error also names the offending value.
var (
	// ErrUnknownCurrency means the currency is not an ISO 4217 alphabetic code.
	ErrUnknownCurrency = errors.New("money: unknown ISO 4217 currency")
	// ErrTooManyDigits means the value has more fraction digits than the
	// currency's ISO 4217 minor units ([Parse]: the text has, zeros
	// included). Amounts are never rounded.
	ErrTooManyDigits = errors.New("money: more fraction digits than the currency's minor units")
	// ErrInvalidAmount means the amount text is not a decimal number, or
	// the number is out of the interface's range.
	ErrInvalidAmount = errors.New("money: invalid amount")
	// ErrUnreadable is what [Amount.Err] (and [Amount.Validate]) report for
	// an amount of a bank document that could not be read: its text is
	// not a decimal number ("abc", true), it is out of range (an exponent
	// beyond ±64, more than 64 characters), or the money object is not an
	// object with a string currency. Such an error also matches
	// [ErrInvalidAmount].
	ErrUnreadable = errors.New("money: unreadable amount")
)

// Contract precision and scale of an amount (docs/interface.md sections
// 2.1 and 8): 18 digits in all, 5 of them after the decimal point, so at
// most [MaxIntegerDigits] before it.
const (
	maxPrecision = 18
	maxScale     = 5
	// MaxIntegerDigits is the number of digits an amount may have before
	// the decimal point: contract precision 18 less scale 5, so
	// 9999999999999.99 NOK is the largest NOK amount a request may carry.
	MaxIntegerDigits = maxPrecision - maxScale
)

// Amount is a decimal value in an ISO 4217 currency.
//
// The zero Amount has no currency and is not valid for a request; use [New]
// or [Parse] to build one.
//
// An Amount decoded from a bank document whose amount cannot be read (see
// [ErrUnreadable]) does not fail the document: it is kept as an unreadable
// Amount, whose [Amount.Err] says why and whose [Amount.Raw] is the money
// object exactly as the bank sent it. Its Value is zero and its Currency
// is the currency the bank sent when that was a string. Encoding it again
// writes the raw money object unchanged; setting Value or Currency does
// not make it readable (build a new one with [New] or [Parse]). Requests
// refuse it: [Amount.Validate] returns its error.
//
// A readable amount decoded from a bank document that [Amount.Validate]
// refuses (more fraction digits than its currency has, an unknown or
// withdrawn currency, no currency) is encoded again as the bank sent it:
// its amount text and currency unchanged. Once its Value or Currency is
// set to something else it is encoded, and validated, as an amount built
// in code.
//
// Amounts are values, safe to copy and to share between goroutines;
// compare them with [Amount.Equal], not ==.
type Amount struct {
	// Value is the exact decimal value (zero for an unreadable amount).
	Value decimal.Decimal
	// Currency is the ISO 4217 alphabetic code, as sent.
	Currency string

	// src is what a bank document carried, kept only for an unreadable
	// amount and for a readable one that Validate refuses; nil for every
	// other amount, so that a decoded valid amount equals a parsed one.
	src *source
}

// source is the bank's text of a decoded amount that cannot be encoded
// as an amount built in code would be.
type source struct {
	// raw is the money object exactly as sent (unreadable amounts only).
	raw string
	// err is why the amount is unreadable, nil for a readable one. It is
	// built once, at decoding, so [Amount.Err] costs nothing.
	err error

	// For a readable amount: the value and currency as decoded, the
	// amount's text as sent and whether it was a JSON string (or a
	// number), and whether the money object had a currency member.
	value       decimal.Decimal
	currency    string
	text        string
	isString    bool
	hasCurrency bool
}

// unreadable reports whether a is an unreadable decoded amount.
func (a Amount) unreadable() bool { return a.src != nil && a.src.err != nil }

// rawText is the raw money object of an unreadable amount, "" otherwise.
func (a Amount) rawText() string {
	if a.unreadable() {
		return a.src.raw
	}
	return ""
}

// asDecoded reports whether a readable decoded amount still holds the
// value and currency it was decoded with, so it is written as sent.
func (a Amount) asDecoded() bool {
	s := a.src
	return s != nil && s.err == nil && a.Currency == s.currency &&
		expInRange(a.Value) && a.Value.Equal(s.value)
}

// IsCurrency reports whether code is an ISO 4217 alphabetic currency code
// (upper case, as the interface requires).
func IsCurrency(code string) bool {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return false
	}
	return currency.IsValid(code)
}

// MinorUnits returns the number of fraction digits of an ISO 4217 currency
// (NOK 2, JPY 0, KWD 3, CLF 4) and whether the currency is known.
func MinorUnits(code string) (int, bool) {
	if !IsCurrency(code) {
		return 0, false
	}
	d, ok := currency.GetDigits(code)
	return int(d), ok
}

// New returns the amount value in currency cur after checking it with
// [Amount.Validate].
func New(value decimal.Decimal, cur string) (Amount, error) {
	a := Amount{Value: value, Currency: cur}
	if err := a.Validate(); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// MustParse is like [Parse] but panics on error. It is meant for constants
// in tests and examples, never for input.
func MustParse(amount, cur string) Amount {
	a, err := Parse(amount, cur)
	if err != nil {
		panic(err)
	}
	return a
}

// Parse reads a decimal amount such as "150.00" or "5" in currency cur. It
// accepts fewer fraction digits than the currency has ("150" NOK is 150.00
// NOK) and refuses more as written, zeros included, with
// [ErrTooManyDigits]: "1.000" NOK is one thousand kroner with a thousands
// separator, or a typing error, never 1.00 NOK (the interface's amounts
// have exactly the currency's minor units, docs/interface.md section
// 2.1).
func Parse(amount, cur string) (Amount, error) {
	v, err := parseDecimal(amount)
	if err != nil {
		return Amount{}, err
	}
	a, err := New(v, cur)
	if err != nil {
		return Amount{}, err
	}
	units, _ := MinorUnits(cur) // New checked cur
	if _, frac, ok := strings.Cut(amount, "."); ok && len(frac) > units {
		return Amount{}, fmt.Errorf("%w: %q %s has more than %d", ErrTooManyDigits, truncate(amount), cur, units)
	}
	return a, nil
}

func parseDecimal(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	if t == "" || t != s || strings.ContainsAny(t, "eE_") || len(t) > 64 || !signsInFront(t) {
		return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(s))
	}
	v, err := newDecimal(t)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(s))
	}
	return v, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Validate reports whether a is acceptable in a request: a known currency,
// at most the currency's minor units as fraction digits (never more than
// the contract scale of 5), and at most [MaxIntegerDigits] digits before
// the decimal point (contract precision 18, scale 5; docs/interface.md
// sections 2.1 and 8).
func (a Amount) Validate() error {
	if err := a.Err(); err != nil {
		return err
	}
	units, ok := MinorUnits(a.Currency)
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownCurrency, truncate(a.Currency))
	}
	if !expInRange(a.Value) {
		return fmt.Errorf("%w: %s %s is out of range", ErrInvalidAmount, textOf(a.Value), a.Currency)
	}
	if fractionDigits(a.Value) > units {
		return fmt.Errorf("%w: %s %s has more than %d", ErrTooManyDigits, a.Value.String(), a.Currency, units)
	}
	if n := integerDigits(a.Value); n > MaxIntegerDigits {
		return fmt.Errorf("%w: %s %s has %d digits before the decimal point, more than %d (precision %d, scale %d)",
			ErrInvalidAmount, truncate(a.Value.String()), a.Currency, n, MaxIntegerDigits, maxPrecision, maxScale)
	}
	return nil
}

// expInRange reports whether v's exponent is within ±[maxExponent], so that
// printing it takes a bounded time and memory. A value built in code as
// decimal.New(1, 40000000) would otherwise make String take minutes.
func expInRange(v decimal.Decimal) bool {
	e := v.Exponent()
	return e <= maxExponent && e >= -maxExponent
}

// textOf prints v in full, or as coefficient "e" exponent when its exponent
// is out of range (see [expInRange]).
func textOf(v decimal.Decimal) string {
	if expInRange(v) {
		return v.String()
	}
	return truncate(v.Coefficient().String()) + "e" + strconv.Itoa(int(v.Exponent()))
}

// integerDigits is the number of digits of v before the decimal point
// (1 for 0.50). v's exponent must be in range ([expInRange]).
func integerDigits(v decimal.Decimal) int {
	return len(v.Abs().Truncate(0).String())
}

// fractionDigits is the number of significant fraction digits of v
// (trailing zeros do not count: 1.50 has one).
func fractionDigits(v decimal.Decimal) int {
	s := v.String() // shopspring trims trailing zeros
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// String formats the amount with its currency's minor units and the code,
// for example "150.00 NOK". An unknown currency prints the value as is.
func (a Amount) String() string {
	return a.Text() + " " + a.Currency
}

// Text returns the amount as the interface writes it: exactly the currency's
// minor units as fraction digits ("150.00" for NOK, "5" for JPY). A value
// with more digits than that (possible only in a decoded bank document) is
// written in full, never rounded.
//
// For an unreadable amount ([Amount.Err]) Text returns the amount as the
// bank wrote it: the string's content, or the JSON token ("1e400", "true").
func (a Amount) Text() string {
	if a.unreadable() {
		return rawAmountText(a.src.raw)
	}
	units, ok := MinorUnits(a.Currency)
	if !expInRange(a.Value) || !ok || fractionDigits(a.Value) > units {
		return textOf(a.Value)
	}
	return a.Value.StringFixed(int32(units))
}

// IsZero reports whether the amount is the zero Amount (no currency and no
// value): an absent amount. An amount decoded from a money object is never
// zero ({"amount":"0","currency":"NOK"} is 0.00 NOK, and an unreadable
// amount is not absent); only an absent or null member leaves the zero
// Amount.
func (a Amount) IsZero() bool {
	return a.Currency == "" && a.Value.IsZero() && a.src == nil
}

// Equal reports whether a and b have the same currency and numeric value
// (150.0 NOK equals 150.00 NOK). Unreadable amounts are equal only to an
// unreadable amount with the same raw text.
func (a Amount) Equal(b Amount) bool {
	return a.Currency == b.Currency && sameValue(a.Value, b.Value) && a.rawText() == b.rawText()
}

// sameValue reports whether x and y are numerically equal. shopspring's
// Equal rescales one value to the other's exponent, building 10^d for an
// exponent difference d: an amount built in code as decimal.New(1, 1e9)
// would take hours and gigabytes. Out of range ([expInRange]), both are
// compared by coefficient and exponent once trailing zeros are dropped,
// which costs nothing for the exponent.
func sameValue(x, y decimal.Decimal) bool {
	if expInRange(x) && expInRange(y) {
		return x.Equal(y)
	}
	cx, ex := normalized(x)
	cy, ey := normalized(y)
	return ex == ey && cx.Cmp(cy) == 0
}

// normalized returns v's coefficient without trailing zeros and the
// exponent that goes with it (0 for zero).
func normalized(v decimal.Decimal) (*big.Int, int64) {
	c, e := v.Coefficient(), int64(v.Exponent())
	if c.Sign() == 0 {
		return c, 0
	}
	ten := big.NewInt(10)
	var q, r big.Int
	for {
		if q.QuoRem(c, ten, &r); r.Sign() != 0 {
			return c, e
		}
		c.Set(&q)
		e++
	}
}

// Positive reports whether the value is greater than zero (never for an
// unreadable amount).
func (a Amount) Positive() bool { return !a.unreadable() && a.Value.IsPositive() }

// Err reports whether the amount could be read: nil for every amount built
// with [New] or [Parse] and every amount decoded from a readable money
// object; for an unreadable one (see [Amount]) an error matching
// [ErrUnreadable] and [ErrInvalidAmount] that says why. Check it on
// amounts read from the bank before doing arithmetic with them. The
// error is the one found when decoding: Err does no work and allocates
// nothing.
func (a Amount) Err() error {
	if a.src == nil {
		return nil
	}
	return a.src.err
}

// Raw returns the money object exactly as the bank sent it when the
// amount could not be read ([Amount.Err] is not nil), and "" otherwise.
func (a Amount) Raw() string { return a.rawText() }

// MarshalJSON writes {"amount":"150.00","currency":"NOK"}. It fails for an
// amount built in code that [Amount.Validate] refuses, so an invalid
// amount built in code never reaches the wire. An amount decoded from a
// bank document is written back as the bank sent it, so a decoded
// document always encodes again: an unreadable one ([Amount.Err]) as its
// raw money object, a readable one that Validate refuses (0.125 EUR, a
// withdrawn currency, no currency) as its amount text and currency
// unchanged. Requests refuse such amounts in their validation before
// anything is encoded.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.unreadable() {
		return []byte(a.src.raw), nil
	}
	var b bytes.Buffer
	if a.asDecoded() {
		s := a.src
		b.WriteString(`{"amount":`)
		if s.isString {
			text, _ := json.Marshal(s.text)
			b.Write(text)
		} else {
			b.WriteString(s.text)
		}
		if s.hasCurrency {
			b.WriteString(`,"currency":`)
			cur, _ := json.Marshal(s.currency)
			b.Write(cur)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	b.WriteString(`{"amount":"`)
	b.WriteString(a.Text())
	b.WriteString(`","currency":`)
	cur, _ := json.Marshal(a.Currency)
	b.Write(cur)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// maxExponent bounds the decimal exponent of a decoded amount: a short
// text such as "1e40000000" would otherwise take gigabytes and minutes to
// print (String, Text, MarshalJSON).
const maxExponent = 64

// UnmarshalJSON reads a money object as the bank sends it. The amount may be
// a JSON string or number; its exact value is kept, whatever its number of
// fraction digits. An unknown currency is kept as sent (faithful decoding);
// call [Amount.Validate] to check it. UnmarshalJSON does not fail on any
// JSON value, so one odd amount never fails a whole bank document: a money
// object whose amount cannot be read becomes an unreadable Amount (see
// [Amount.Err] and [Amount.Raw]). A money object without an amount
// ({"currency":"NOK"}, an amount that is null or "") is unreadable too,
// never 0.00. JSON null, like an absent member, leaves a unchanged; data
// that is not JSON at all (possible only when called directly) is an
// error. The work is linear in the size of data: an amount text is
// checked for length and characters before it is parsed as a number.
func (a *Amount) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	if !json.Valid(data) {
		return fmt.Errorf("%w: not JSON", ErrInvalidAmount)
	}
	v, src, err := decodeMoney(data)
	switch {
	case err != nil:
		v = Amount{Currency: v.Currency, src: &source{raw: string(data), err: fmt.Errorf("%w: %w", ErrUnreadable, err)}}
	case v.Validate() != nil:
		src.value, src.currency = v.Value, v.Currency
		v.src = src
	}
	*a = v
	return nil
}

type wire struct {
	Amount   json.RawMessage `json:"amount"`
	Currency *string         `json:"currency"`
}

// newDecimal parses a decimal number. Its cost grows with the square of
// the text's length, so callers bound the length first; it is a variable
// so that tests can see every text that reaches it.
var newDecimal = decimal.NewFromString

// decodeMoney reads a money object strictly. On success it also returns
// the amount's text as sent (for writing it back). On failure it returns
// the error and, when the currency could be read, an Amount holding it.
func decodeMoney(data []byte) (Amount, *source, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		var cur struct{ Currency string }
		_ = json.Unmarshal(data, &cur)
		return Amount{Currency: cur.Currency}, nil, fmt.Errorf("%w: not a money object with a string currency: %q", ErrInvalidAmount, truncate(string(data)))
	}
	var cur string
	if w.Currency != nil {
		cur = *w.Currency
	}
	text, isString := amountText(w.Amount)
	v, err := readAmount(text)
	if err != nil {
		return Amount{Currency: cur}, nil, err
	}
	src := &source{text: text, isString: isString, hasCurrency: w.Currency != nil}
	return Amount{Value: v, Currency: cur}, src, nil
}

// readAmount reads the text of a decoded amount: a decimal number of at
// most [maxAmountText] characters, optionally with spaces around it and an
// exponent within ±[maxExponent]. Length and characters are checked
// before the number is parsed.
func readAmount(text string) (decimal.Decimal, error) {
	if len(text) > maxAmountText {
		return decimal.Decimal{}, fmt.Errorf("%w: %q has more than %d characters", ErrInvalidAmount, truncate(text), maxAmountText)
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return decimal.Decimal{}, fmt.Errorf("%w: no amount", ErrInvalidAmount)
	}
	for i := range len(t) {
		if c := t[i]; (c < '0' || c > '9') && !strings.ContainsRune(".+-eE", rune(c)) {
			return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(text))
		}
	}
	if !signsInFront(t) {
		return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(text))
	}
	v, err := newDecimal(t)
	if err != nil || v.Exponent() > maxExponent || v.Exponent() < -maxExponent {
		return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(text))
	}
	return v, nil
}

// signsInFront reports whether every '+' or '-' of t stands in front of
// the number or of its exponent (right after 'e' or 'E'). shopspring's
// NewFromString takes a sign anywhere after the decimal point (".-5" is
// -0.05 to it, the sign counted as a fraction digit), so the sign's place
// is checked first.
func signsInFront(t string) bool {
	for i := 1; i < len(t); i++ {
		if c := t[i]; (c == '+' || c == '-') && t[i-1] != 'e' && t[i-1] != 'E' {
			return false
		}
	}
	return true
}

// maxAmountText bounds the length of a decoded amount's text.
const maxAmountText = 64

// amountText returns the text of an amount token: a JSON string's content
// (isString true) or the token itself; "" for an absent or null amount.
// A string with escapes, rare in amounts, is decoded by encoding/json.
func amountText(raw json.RawMessage) (text string, isString bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return "", false
	case raw[0] == '"':
		if t, ok := jsontext.PlainString(raw); ok {
			return t, true
		}
		if err := json.Unmarshal(raw, &text); err != nil {
			return string(raw), false
		}
		return text, true
	default:
		return string(raw), false
	}
}

// rawAmountText is the amount text of a raw money object as the bank
// wrote it, or the whole raw text when it is not an object.
func rawAmountText(raw string) string {
	var w struct {
		Amount json.RawMessage `json:"amount"`
	}
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		return raw
	}
	text, _ := amountText(w.Amount)
	return text
}
