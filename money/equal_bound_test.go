package money

import (
	"runtime"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
)

// TestEqualHugeExponent: Equal of an amount built in code with an exponent
// far out of range (decimal.New(1, 1<<20)) must not build 10^(1<<20) to
// compare, as shopspring's Equal does by rescaling (exponent 1e9 would take
// hours and gigabytes), and must still compare exactly. Not parallel: it
// measures the bytes allocated.
func TestEqualHugeExponent(t *testing.T) {
	huge := Amount{Value: decimal.New(1, 1<<20), Currency: "NOK"}
	one := Amount{Value: decimal.New(1, 0), Currency: "NOK"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	eq := huge.Equal(one) || one.Equal(huge)
	runtime.ReadMemStats(&after)
	assert.False(t, eq)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "bytes allocated by Equal")

	assert.True(t, huge.Equal(Amount{Value: decimal.New(10, 1<<20-1), Currency: "NOK"}))
	assert.False(t, huge.Equal(Amount{Value: decimal.New(10, 1<<20), Currency: "NOK"}))
	assert.False(t, huge.Equal(Amount{Value: decimal.New(1, 1<<20), Currency: "SEK"}))
	tiny := Amount{Value: decimal.New(5, -(1 << 20)), Currency: "NOK"}
	assert.True(t, tiny.Equal(Amount{Value: decimal.New(500, -(1<<20)-2), Currency: "NOK"}))
	assert.False(t, tiny.Equal(Amount{Value: decimal.New(-5, -(1 << 20)), Currency: "NOK"}))
	assert.True(t, Amount{Value: decimal.New(0, 1<<20), Currency: "NOK"}.Equal(MustParse("0", "NOK")))
	assert.True(t, MustParse("150.5", "NOK").Equal(MustParse("150.50", "NOK")))
}
