package reconcile

import (
	"math"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/money"
)

// TestAmtOfExact: an amount is kept exactly or refused, never read as
// another: an exponent whose negation overflows int32 is not 1 NOK, and
// trailing zeros beyond the kept scale do not make an exact amount
// unreadable.
func TestAmtOfExact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    decimal.Decimal
		want amt
		ok   bool
	}{
		{decimal.New(1, math.MinInt32), amt{}, false},
		{decimal.New(1, -19), amt{}, false},
		{decimal.New(12500, -2), amt{units: 125, cur: "NOK"}, true},
		{decimal.RequireFromString("125.0000000000000000000000"), amt{units: 125, cur: "NOK"}, true},
		{decimal.RequireFromString("10000000000000000000000.00"), amt{}, false},
	} {
		got, ok := amtOf(money.Amount{Value: tc.v, Currency: "NOK"})
		name := tc.v.Coefficient().String() + "e" + strconv.Itoa(int(tc.v.Exponent()))
		assert.Equal(t, tc.ok, ok, name)
		assert.Equal(t, tc.want, got, name)
	}
}
