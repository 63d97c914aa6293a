package reconcile

import (
	"encoding/json"
	"math"
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// amt is an amount as the state keeps it: units/10^scale of currency cur,
// with no trailing zero in its fraction (150.00 is 150, scale 0), so that
// equal amounts have equal amts. Currencies are compared as they are:
// never converted.
type amt struct {
	units int64
	scale uint8
	cur   string
}

// maxScale bounds an amt's fraction digits (the interface's contract
// scale is 5).
const maxScale = 18

// maxTrailingZeros bounds the zeros beyond maxScale that amtOf drops from
// an amount's fraction (a bank's text is at most 64 characters).
const maxTrailingZeros = 64

// amtOf returns a's amt; false when it is unreadable or does not fit.
func amtOf(a money.Amount) (amt, bool) {
	if a.Err() != nil || len(a.Currency) != 3 {
		return amt{}, false
	}
	v := a.Value
	exp := int64(v.Exponent()) // in int64: -math.MinInt32 does not fit an int32
	coef := v.Coefficient()
	if exp > 0 {
		if exp > 18 {
			return amt{}, false
		}
		coef.Mul(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(exp), nil))
		exp = 0
	}
	// Fraction digits beyond maxScale are kept only when they are zeros
	// (125.000…0 is 125): an amount is read exactly, or not at all.
	if extra := -exp - maxScale; extra > 0 {
		if extra > maxTrailingZeros {
			return amt{}, false
		}
		var rem big.Int
		coef.QuoRem(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(extra), nil), &rem)
		if rem.Sign() != 0 {
			return amt{}, false
		}
		exp = -maxScale
	}
	ten := big.NewInt(10)
	for exp < 0 && coef.Sign() != 0 && !coef.IsInt64() {
		var q, rem big.Int
		if q.QuoRem(coef, ten, &rem); rem.Sign() != 0 {
			break
		}
		coef, exp = &q, exp+1
	}
	if !coef.IsInt64() {
		return amt{}, false
	}
	out := amt{units: coef.Int64(), scale: uint8(-exp), cur: a.Currency}
	for out.scale > 0 && out.units%10 == 0 {
		out.units /= 10
		out.scale--
	}
	return out, true
}

// money returns the amt as an Amount, with at least its currency's
// minor units as fraction digits (1250 NOK is 1250.00, as decoded).
func (a amt) money() money.Amount {
	if a.cur == "" {
		return money.Amount{}
	}
	v := decimal.New(a.units, -int32(a.scale))
	if m, ok := money.MinorUnits(a.cur); ok && m > int(a.scale) {
		v = decimal.NewFromBigInt(new(big.Int).Mul(big.NewInt(a.units), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(m)-int64(a.scale)), nil)), -int32(m))
	}
	return bankAmount(v, a.cur)
}

// bankAmount returns the Amount of v in cur. A bank's amount that
// money.Amount.Validate refuses (more fraction digits than the currency
// has, a code outside ISO 4217) is made as decoded from the bank, so
// that it encodes as sent: built in code, it would fail to encode, and
// the events and states carrying it with it.
func bankAmount(v decimal.Decimal, cur string) money.Amount {
	a := money.Amount{Value: v, Currency: cur}
	if a.Validate() == nil {
		return a
	}
	b, err := json.Marshal(struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	}{v.String(), cur})
	var d money.Amount
	if err != nil || json.Unmarshal(b, &d) != nil || d.Err() != nil {
		return a
	}
	return d
}

// neg returns -a.
func (a amt) neg() amt {
	if a.units == math.MinInt64 {
		return amt{} // does not occur: amtOf never makes it
	}
	a.units = -a.units
	return a
}

// within reports whether a is below pay by at most share percent of it:
// a fee deducted from a payment of the same currency.
func (a amt) within(pay amt, share int64) bool {
	if a.cur != pay.cur || a.units <= 0 || pay.units <= 0 {
		return false
	}
	x, y := decimal.New(a.units, -int32(a.scale)), decimal.New(pay.units, -int32(pay.scale))
	if !x.LessThan(y) {
		return false
	}
	return y.Sub(x).Mul(decimal.NewFromInt(100)).LessThanOrEqual(y.Mul(decimal.NewFromInt(share)))
}

// Days are kept as day numbers: days since 1970-01-01.

// dayOf returns d's day number; 0 for the zero Date.
func dayOf(d date.Date) int32 {
	if d.IsZero() {
		return 0
	}
	days := d.Time(nil).Unix() / 86400
	if days < 1 || days > math.MaxInt32 {
		return 0
	}
	return int32(days)
}

// dateOf returns the Date of day number n; the zero Date for 0.
func dateOf(n int32) date.Date {
	if n <= 0 {
		return date.Date{}
	}
	return date.Of(time.Unix(int64(n)*86400, 0).UTC())
}

// bankDay is the bank's date (Europe/Oslo) of t, as a day number.
func bankDay(t time.Time) int32 { return dayOf(date.Of(t.In(date.Oslo()))) }
