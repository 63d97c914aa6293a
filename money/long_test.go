package money

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longDoc is a money object whose amount has n digits, as a JSON string or
// a JSON number.
func longDoc(n int, asString bool) []byte {
	amount := strings.Repeat("9", n)
	if asString {
		amount = `"` + amount + `"`
	}
	return []byte(`{"amount":` + amount + `,"currency":"NOK"}`)
}

// A 4 MiB amount (the largest 2xx body the client reads) is refused as
// unreadable without being parsed as a number: the decimal parser, whose
// work grows with the square of its input, never sees more than
// maxAmountText bytes. Err and Validate report the reason found when
// decoding, without decoding again: they allocate nothing. (Not parallel:
// it replaces newDecimal to watch its input.)
func TestLongAmountIsNotParsed(t *testing.T) {
	longest := 0
	parse := newDecimal
	newDecimal = func(s string) (decimal.Decimal, error) {
		longest = max(longest, len(s))
		return parse(s)
	}
	defer func() { newDecimal = parse }()

	const n = 4<<20 - 40
	for _, asString := range []bool{true, false} {
		doc := longDoc(n, asString)
		var a Amount
		require.NotPanics(t, func() { require.NoError(t, json.Unmarshal(doc, &a)) })
		require.ErrorIs(t, a.Err(), ErrUnreadable)
		assert.ErrorIs(t, a.Err(), ErrInvalidAmount)
		assert.ErrorIs(t, a.Validate(), ErrUnreadable)
		assert.Less(t, len(a.Err().Error()), 200, "the error quotes a short prefix")
		assert.Equal(t, "NOK", a.Currency)
		assert.Len(t, a.Raw(), len(doc))
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = a.Err() }), "Err decodes nothing")
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = a.Validate() }), "nor does Validate")
		out, err := json.Marshal(a)
		require.NoError(t, err)
		assert.Equal(t, string(doc), string(out), "written back as sent")

		// Just over the limit, with spaces, and in Parse: refused before parsing.
		_, err = Parse(strings.Repeat("9", n), "NOK")
		assert.ErrorIs(t, err, ErrInvalidAmount)
	}
	for _, in := range []string{
		`{"amount":"` + strings.Repeat("1", maxAmountText+1) + `","currency":"NOK"}`,
		`{"amount":" ` + strings.Repeat("1", maxAmountText) + `","currency":"NOK"}`,
	} {
		var a Amount
		require.NoError(t, json.Unmarshal([]byte(in), &a))
		assert.ErrorIs(t, a.Err(), ErrUnreadable, in)
	}
	// The longest readable amount is parsed and kept.
	var a Amount
	require.NoError(t, json.Unmarshal(longDoc(maxAmountText, true), &a))
	require.NoError(t, a.Err())
	assert.Equal(t, strings.Repeat("9", maxAmountText), a.Value.String())

	assert.Equal(t, maxAmountText, longest, "no text longer than maxAmountText was parsed")
}

// BenchmarkDecodeLongAmount decodes a money object with a 1 KiB and a
// 1 MiB amount (then calls Err) and reports the ratio of their times
// (the 1 KiB one is decoded 16 times per loop for a steadier figure):
// about 1024 for work linear in the input, the 1 MiB object being 1024
// times longer; about a million for work that grows with its square.
func BenchmarkDecodeLongAmount(b *testing.B) {
	small, large := longDoc(1<<10, true), longDoc(1<<20, true)
	var tSmall, tLarge time.Duration
	run := func(doc []byte) time.Duration {
		start := time.Now()
		var a Amount
		if err := json.Unmarshal(doc, &a); err != nil || a.Err() == nil {
			b.Fatal("not unreadable")
		}
		return time.Since(start)
	}
	for b.Loop() {
		for range 16 {
			tSmall += run(small)
		}
		tLarge += run(large)
	}
	b.ReportMetric(float64(tLarge)*16/float64(tSmall), "ratio-1MiB/1KiB")
}
