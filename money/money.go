package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bojanz/currency"
	"github.com/shopspring/decimal"
)

// Errors returned by [New], [Parse] and [Amount.Validate]. Match them with
// errors.Is; the returned error also names the offending value.
var (
	// ErrUnknownCurrency means the currency is not an ISO 4217 alphabetic code.
	ErrUnknownCurrency = errors.New("money: unknown ISO 4217 currency")
	// ErrTooManyDigits means the value has more fraction digits than the
	// currency's ISO 4217 minor units. Amounts are never rounded.
	ErrTooManyDigits = errors.New("money: more fraction digits than the currency's minor units")
	// ErrInvalidAmount means the amount text is not a decimal number.
	ErrInvalidAmount = errors.New("money: invalid amount")
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
type Amount struct {
	Value    decimal.Decimal
	Currency string
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
// NOK) and refuses more.
func Parse(amount, cur string) (Amount, error) {
	v, err := parseDecimal(amount)
	if err != nil {
		return Amount{}, err
	}
	return New(v, cur)
}

func parseDecimal(s string) (decimal.Decimal, error) {
	t := strings.TrimSpace(s)
	if t == "" || t != s || strings.ContainsAny(t, "eE_") || len(t) > 64 {
		return decimal.Decimal{}, fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(s))
	}
	v, err := decimal.NewFromString(t)
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
func (a Amount) Text() string {
	units, ok := MinorUnits(a.Currency)
	if !expInRange(a.Value) || !ok || fractionDigits(a.Value) > units {
		return textOf(a.Value)
	}
	return a.Value.StringFixed(int32(units))
}

// IsZero reports whether the amount is the zero Amount (no currency and no
// value).
func (a Amount) IsZero() bool {
	return a.Currency == "" && a.Value.IsZero()
}

// Equal reports whether a and b have the same currency and numeric value
// (150.0 NOK equals 150.00 NOK).
func (a Amount) Equal(b Amount) bool {
	return a.Currency == b.Currency && a.Value.Equal(b.Value)
}

// Positive reports whether the value is greater than zero.
func (a Amount) Positive() bool { return a.Value.IsPositive() }

type wire struct {
	Amount   json.RawMessage `json:"amount"`
	Currency string          `json:"currency"`
}

// MarshalJSON writes {"amount":"150.00","currency":"NOK"}. It fails for an
// amount that [Amount.Validate] refuses, so an invalid amount never reaches
// the wire.
func (a Amount) MarshalJSON() ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
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
// call [Amount.Validate] to check it.
func (a *Amount) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("money: %w", err)
	}
	raw := bytes.TrimSpace(w.Amount)
	var text string
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		text = ""
	case raw[0] == '"':
		if err := json.Unmarshal(raw, &text); err != nil {
			return fmt.Errorf("money: %w", err)
		}
	default:
		text = string(raw)
	}
	var v decimal.Decimal
	if text != "" {
		var err error
		if v, err = decimal.NewFromString(strings.TrimSpace(text)); err != nil || len(text) > 64 ||
			v.Exponent() > maxExponent || v.Exponent() < -maxExponent {
			return fmt.Errorf("%w: %q", ErrInvalidAmount, truncate(text))
		}
	}
	*a = Amount{Value: v, Currency: w.Currency}
	return nil
}
