package money

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMinorUnits pins the ISO 4217 minor units, including currencies where
// CLDR's cash or display digits differ from ISO (IQD, RSD, IDR).
func TestMinorUnits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code  string
		units int
	}{
		{"NOK", 2}, {"SEK", 2}, {"DKK", 2}, {"EUR", 2}, {"USD", 2}, {"GBP", 2},
		{"JPY", 0}, {"ISK", 0}, {"KRW", 0}, {"CLP", 0}, {"VND", 0}, {"UGX", 0}, {"PYG", 0},
		{"KWD", 3}, {"BHD", 3}, {"JOD", 3}, {"OMR", 3}, {"TND", 3}, {"LYD", 3},
		{"IQD", 3}, {"RSD", 2}, {"IDR", 2}, {"HUF", 2}, {"TWD", 2}, {"COP", 2},
		{"CLF", 4}, {"UYW", 4},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			u, ok := MinorUnits(tt.code)
			require.True(t, ok)
			assert.Equal(t, tt.units, u)
			assert.True(t, IsCurrency(tt.code))
		})
	}
	for _, code := range []string{"", "nok", "Nok", "NOKK", "NO", "XXX", "XAU", "ABC", "N\u00d8K"} {
		_, ok := MinorUnits(code)
		assert.False(t, ok, code)
		assert.False(t, IsCurrency(code), code)
	}
}

// TestCurrencyListChanges pins the ISO 4217 changes since 2023, so a
// dependency update that loses one shows here. Introduced codes are
// accepted with their minor units. Withdrawn codes are no longer in the
// bank's fixed list (docs/interface.md section 2.1): a request in one is
// refused before sending, while a bank document carrying one still
// decodes as sent (see TestUnmarshalJSON).
func TestCurrencyListChanges(t *testing.T) {
	t.Parallel()
	introduced := []struct {
		code  string
		units int
		what  string
	}{
		{"XCG", 2, "Caribbean guilder, Curaçao and Sint Maarten, 2025 (replaces ANG)"},
		{"ZWG", 2, "Zimbabwe Gold, 2024 (replaces ZWL)"},
		{"SLE", 2, "new leone, Sierra Leone, 2022 (replaces SLL)"},
		{"VED", 2, "digital bolívar, Venezuela, 2021"},
		{"VES", 2, "bolívar soberano, Venezuela (replaced VEF)"},
		{"EUR", 2, "Croatia's currency since 2023 (replaces HRK)"},
	}
	for _, c := range introduced {
		t.Run("introduced "+c.code, func(t *testing.T) {
			t.Parallel()
			assert.True(t, IsCurrency(c.code), c.what)
			u, ok := MinorUnits(c.code)
			assert.True(t, ok)
			assert.Equal(t, c.units, u)
			a, err := Parse("10", c.code)
			require.NoError(t, err)
			b, err := json.Marshal(a)
			require.NoError(t, err)
			assert.JSONEq(t, `{"amount":"10.00","currency":"`+c.code+`"}`, string(b))
		})
	}
	withdrawn := map[string]string{
		"ANG": "Netherlands Antillean guilder, withdrawn 2025",
		"ZWL": "Zimbabwe dollar, withdrawn 2024",
		"HRK": "Croatian kuna, withdrawn 2023",
		"SLL": "old leone, withdrawn 2023",
		"VEF": "bolívar fuerte, withdrawn 2018",
		"CUC": "Cuban convertible peso, withdrawn 2021",
		"MRO": "old ouguiya, withdrawn 2018",
		"STD": "old dobra, withdrawn 2018",
		"BYR": "old Belarusian ruble, withdrawn 2017",
		"LTL": "Lithuanian litas, withdrawn 2015",
	}
	for code, what := range withdrawn {
		t.Run("withdrawn "+code, func(t *testing.T) {
			t.Parallel()
			assert.False(t, IsCurrency(code), what)
			_, err := Parse("10", code)
			assert.ErrorIs(t, err, ErrUnknownCurrency)
			var a Amount
			require.NoError(t, json.Unmarshal([]byte(`{"amount":"10.00","currency":"`+code+`"}`), &a), "a bank document in it decodes")
			assert.Equal(t, code, a.Currency)
			assert.ErrorIs(t, a.Validate(), ErrUnknownCurrency)
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		amount, cur string
		text        string // Text() on success
		err         error
	}{
		{amount: "150.00", cur: "NOK", text: "150.00"},
		{amount: "150", cur: "NOK", text: "150.00"},
		{amount: "150.5", cur: "NOK", text: "150.50"},
		{amount: "0.01", cur: "NOK", text: "0.01"},
		{amount: "5", cur: "JPY", text: "5"},
		{amount: "1.25", cur: "KWD", text: "1.250"},
		{amount: "1.250", cur: "KWD", text: "1.250"},
		{amount: "0.0001", cur: "CLF", text: "0.0001"},
		{amount: "12.345", cur: "IQD", text: "12.345"},
		{amount: "99.99", cur: "RSD", text: "99.99"},
		{amount: "15000.50", cur: "IDR", text: "15000.50"},
		{amount: "-3.5", cur: "NOK", text: "-3.50"},
		{amount: "1234567890123.45", cur: "NOK", text: "1234567890123.45"},
		{amount: "9999999999999.99", cur: "NOK", text: "9999999999999.99"},
		{amount: "-9999999999999.99", cur: "NOK", text: "-9999999999999.99"},
		{amount: "9999999999999", cur: "JPY", text: "9999999999999"},
		{amount: "9999999999999.9999", cur: "CLF", text: "9999999999999.9999"},
		// Contract precision 18 with scale 5: at most 13 integer digits,
		// whatever the currency's minor units.
		{amount: "10000000000000.00", cur: "NOK", err: ErrInvalidAmount},
		{amount: "-10000000000000", cur: "NOK", err: ErrInvalidAmount},
		{amount: "12345678901234", cur: "JPY", err: ErrInvalidAmount},
		{amount: "1234567890123456.78", cur: "NOK", err: ErrInvalidAmount},
		{amount: "123456789012345678", cur: "JPY", err: ErrInvalidAmount},
		{amount: "150.001", cur: "NOK", err: ErrTooManyDigits},
		// More fraction digits than the currency's minor units are
		// refused as written, zeros included: "1.000" NOK is one
		// thousand kroner written with a thousands separator, or a
		// typing error, never 1.00 NOK.
		{amount: "1.000", cur: "NOK", err: ErrTooManyDigits},
		{amount: "1.5000", cur: "NOK", err: ErrTooManyDigits},
		{amount: "-3.500", cur: "NOK", err: ErrTooManyDigits},
		{amount: "5.0", cur: "JPY", err: ErrTooManyDigits},
		{amount: "1.2500", cur: "KWD", err: ErrTooManyDigits},
		{amount: "0.00010", cur: "CLF", err: ErrTooManyDigits},
		{amount: "5.5", cur: "JPY", err: ErrTooManyDigits},
		{amount: "1.2505", cur: "KWD", err: ErrTooManyDigits},
		{amount: "0.00001", cur: "CLF", err: ErrTooManyDigits},
		{amount: "12.3456", cur: "IQD", err: ErrTooManyDigits},
		{amount: "9.999", cur: "RSD", err: ErrTooManyDigits},
		{amount: "1.001", cur: "IDR", err: ErrTooManyDigits},
		{amount: "12345678901234567.89", cur: "NOK", err: ErrInvalidAmount},
		{amount: "1", cur: "nok", err: ErrUnknownCurrency},
		{amount: "1", cur: "XXX", err: ErrUnknownCurrency},
		{amount: "1", cur: "", err: ErrUnknownCurrency},
		{amount: "", cur: "NOK", err: ErrInvalidAmount},
		{amount: " 1", cur: "NOK", err: ErrInvalidAmount},
		{amount: "1e3", cur: "NOK", err: ErrInvalidAmount},
		{amount: "1,50", cur: "NOK", err: ErrInvalidAmount},
		{amount: "1_000", cur: "NOK", err: ErrInvalidAmount},
		{amount: "abc", cur: "NOK", err: ErrInvalidAmount},
		{amount: strings.Repeat("9", 65), cur: "NOK", err: ErrInvalidAmount},
	}
	for _, tt := range tests {
		t.Run(tt.amount+" "+tt.cur, func(t *testing.T) {
			t.Parallel()
			a, err := Parse(tt.amount, tt.cur)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.True(t, a.IsZero())
				assert.Less(t, len(err.Error()), 160, "long input is truncated in errors")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.text, a.Text())
			assert.Equal(t, tt.text+" "+tt.cur, a.String())
			assert.True(t, a.Value.Equal(decimal.RequireFromString(tt.amount)), "never rounded")
		})
	}
	assert.Panics(t, func() { MustParse("1.001", "NOK") })
	assert.Equal(t, "1.00 NOK", MustParse("1", "NOK").String())
}

func TestNewAndHelpers(t *testing.T) {
	t.Parallel()
	a, err := New(decimal.RequireFromString("150.0"), "NOK")
	require.NoError(t, err)
	assert.True(t, a.Equal(MustParse("150.00", "NOK")))
	assert.False(t, a.Equal(MustParse("150.00", "SEK")))
	assert.True(t, a.Positive())
	assert.False(t, MustParse("0", "NOK").Positive())
	assert.False(t, a.IsZero())
	assert.True(t, Amount{}.IsZero())
	_, err = New(decimal.RequireFromString("0.333"), "EUR")
	assert.ErrorIs(t, err, ErrTooManyDigits)
	assert.ErrorIs(t, Amount{}.Validate(), ErrUnknownCurrency)
	// A value with more digits than its currency (only from a decoded bank
	// document) is printed in full, never rounded.
	odd := Amount{Value: decimal.RequireFromString("1.005"), Currency: "NOK"}
	assert.Equal(t, "1.005", odd.Text())
	assert.Equal(t, "7 ZZZ", Amount{Value: decimal.NewFromInt(7), Currency: "ZZZ"}.String())

	// Values built in code with an absurd exponent are refused and printed
	// at once, not expanded to millions of digits.
	for _, v := range []decimal.Decimal{decimal.New(1, 40000000), decimal.New(1, -40000000)} {
		huge := Amount{Value: v, Currency: "NOK"}
		assert.ErrorIs(t, huge.Validate(), ErrInvalidAmount)
		_, err := New(v, "NOK")
		assert.ErrorIs(t, err, ErrInvalidAmount)
		_, err = json.Marshal(huge)
		assert.Error(t, err)
		assert.Less(t, len(huge.String()), 64)
	}
}

func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    Amount
		want string
	}{
		{MustParse("150", "NOK"), `{"amount":"150.00","currency":"NOK"}`},
		{MustParse("5", "JPY"), `{"amount":"5","currency":"JPY"}`},
		{MustParse("1.25", "KWD"), `{"amount":"1.250","currency":"KWD"}`},
		{MustParse("0.0001", "CLF"), `{"amount":"0.0001","currency":"CLF"}`},
		{MustParse("7", "IQD"), `{"amount":"7.000","currency":"IQD"}`},
		{MustParse("7", "RSD"), `{"amount":"7.00","currency":"RSD"}`},
		{MustParse("7", "IDR"), `{"amount":"7.00","currency":"IDR"}`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.a)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
			assert.Equal(t, tt.want, string(b))
			var back Amount
			require.NoError(t, json.Unmarshal(b, &back))
			assert.True(t, back.Equal(tt.a))
		})
	}
	for _, bad := range []Amount{
		{Value: decimal.RequireFromString("1.001"), Currency: "NOK"},
		{Value: decimal.NewFromInt(1), Currency: "nok"},
		{},
	} {
		_, err := json.Marshal(bad)
		assert.Error(t, err, "an invalid amount never reaches the wire")
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in   string
		value      string
		cur        string
		unreadable bool
		validates  bool
		out        string // encoding of an amount Validate refuses; "" means in
	}{
		{name: "string", in: `{"amount":"150.00","currency":"NOK"}`, value: "150", cur: "NOK", validates: true},
		{name: "number", in: `{"amount":150.5,"currency":"NOK"}`, value: "150.5", cur: "NOK", validates: true},
		{name: "integer JPY", in: `{"currency":"JPY","amount":5}`, value: "5", cur: "JPY", validates: true},
		{name: "more digits than NOK kept", in: `{"amount":"1.005","currency":"NOK"}`, value: "1.005", cur: "NOK"},
		{name: "long number kept exactly", in: `{"amount":12345678901234567890.123456789,"currency":"EUR"}`, value: "12345678901234567890.123456789", cur: "EUR"},
		{name: "40 digits kept exactly", in: `{"amount":"` + strings.Repeat("9", 40) + `","currency":"NOK"}`, value: strings.Repeat("9", 40), cur: "NOK"},
		{name: "exponent number", in: `{"amount":1.5e2,"currency":"NOK"}`, value: "150", cur: "NOK", validates: true},
		{name: "exponent 64 kept", in: `{"amount":1e64,"currency":"NOK"}`, value: "1e64", cur: "NOK"},
		{name: "negative", in: `{"amount":"-0.10","currency":"NOK"}`, value: "-0.1", cur: "NOK", validates: true},
		{name: "spaces in string", in: `{"amount":" 12.5 ","currency":"NOK"}`, value: "12.5", cur: "NOK", validates: true},
		{name: "unknown currency kept", in: `{"amount":"1","currency":"XYZ"}`, value: "1", cur: "XYZ"},
		{name: "withdrawn currency kept", in: `{"amount":"1.00","currency":"ANG"}`, value: "1", cur: "ANG"},
		{name: "no currency", in: `{"amount":"1"}`, value: "1"},
		{name: "currency null", in: `{"amount":"1","currency":null}`, value: "1", out: `{"amount":"1"}`},
		{name: "empty currency", in: `{"amount":"1","currency":""}`, value: "1"},
		{name: "currency first", in: `{"currency":"HRK","amount":1.5}`, value: "1.5", cur: "HRK", out: `{"amount":1.5,"currency":"HRK"}`},
		{name: "spaces kept when refused", in: `{"amount":" 1.005 ","currency":"NOK"}`, value: "1.005", cur: "NOK"},
		{name: "zero without currency", in: `{"amount":"0"}`, value: "0"},
		{name: "extra fields", in: `{"amount":"2","currency":"NOK","x":1}`, value: "2", cur: "NOK", validates: true},
		// Unreadable: kept, marked, never failing the document.
		{name: "not a number", in: `{"amount":"abc","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "bool", in: `{"amount":true,"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "object", in: `{"amount":{},"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "currency not a string", in: `{"amount":"1","currency":5}`, unreadable: true},
		{name: "array", in: `[1]`, unreadable: true},
		{name: "string instead of object", in: `"150.00 NOK"`, unreadable: true},
		{name: "too long", in: `{"amount":"` + strings.Repeat("1", 80) + `","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "exponent beyond 64", in: `{"amount":1e65,"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "huge exponent", in: `{"amount":1e40000000,"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "tiny exponent", in: `{"amount":"1e-40000000","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "long after spaces", in: `{"amount":"` + strings.Repeat(" ", 64) + `1","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "letters", in: `{"amount":"0x10","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "not ASCII", in: `{"amount":"١٢","currency":"NOK"}`, cur: "NOK", unreadable: true},
		// A money object without an amount is unreadable, never 0.00.
		{name: "amount missing", in: `{"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "amount empty", in: `{"amount":"","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "amount blank", in: `{"amount":"  ","currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "amount null", in: `{"amount":null,"currency":"NOK"}`, cur: "NOK", unreadable: true},
		{name: "empty object", in: `{}`, unreadable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var a Amount
			require.NoError(t, json.Unmarshal([]byte(tt.in), &a), "one odd amount never fails a document")
			assert.Equal(t, tt.cur, a.Currency)
			out, err := json.Marshal(a)
			if tt.unreadable {
				require.ErrorIs(t, a.Err(), ErrUnreadable)
				assert.ErrorIs(t, a.Err(), ErrInvalidAmount)
				assert.ErrorIs(t, a.Validate(), ErrUnreadable, "requests refuse it")
				assert.Equal(t, tt.in, a.Raw())
				assert.True(t, a.Value.IsZero())
				assert.False(t, a.IsZero())
				assert.False(t, a.Positive())
				require.NoError(t, err, "encoding a decoded document again works")
				assert.Equal(t, tt.in, string(out), "and writes the raw text back")
				var back Amount
				require.NoError(t, json.Unmarshal(out, &back))
				assert.Equal(t, a, back)
				assert.Less(t, len(a.Err().Error()), 200, "long input is truncated in errors")
				return
			}
			require.NoError(t, a.Err())
			assert.Empty(t, a.Raw())
			assert.False(t, a.IsZero(), "a decoded amount is not absent")
			assert.True(t, a.Value.Equal(decimal.RequireFromString(tt.value)), a.Value.String())
			assert.Equal(t, tt.validates, a.Validate() == nil)
			require.NoError(t, err, "a decoded amount always encodes again")
			var back Amount
			require.NoError(t, json.Unmarshal(out, &back))
			assert.True(t, back.Equal(a), "%s -> %s", tt.in, out)
			if tt.validates {
				built, err := New(a.Value, a.Currency)
				require.NoError(t, err)
				assert.Equal(t, built, a, "a valid decoded amount is the amount built in code")
				return
			}
			want := tt.out
			if want == "" {
				want = tt.in
			}
			assert.Equal(t, want, string(out), "an amount Validate refuses is written as sent")
			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again), "stable")
		})
	}
	var doc struct {
		Amount Amount `json:"instructedAmount"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"instructedAmount":{"currency":"NOK","amount":"1250.00"}}`), &doc))
	assert.Equal(t, "1250.00 NOK", doc.Amount.String())
	assert.Equal(t, MustParse("1250.00", "NOK"), doc.Amount, "a readable decoded amount equals a parsed one")

	// An absent member, or null, is the zero Amount: absent, not an error.
	for _, in := range []string{`{}`, `{"instructedAmount":null}`} {
		var doc struct {
			Amount Amount `json:"instructedAmount"`
		}
		require.NoError(t, json.Unmarshal([]byte(in), &doc), in)
		assert.True(t, doc.Amount.IsZero(), in)
		assert.NoError(t, doc.Amount.Err(), in)
	}

	// Called directly with bytes that are not JSON (a decoder never does).
	var a Amount
	assert.ErrorIs(t, a.UnmarshalJSON([]byte(`{"amount":`)), ErrInvalidAmount)
	assert.True(t, a.IsZero())
}

// An unreadable amount shows the bank's text, compares by it, and never
// equals a readable amount.
func TestUnreadableAmount(t *testing.T) {
	t.Parallel()
	var odd, other, zero Amount
	require.NoError(t, json.Unmarshal([]byte(`{"amount": "abc", "currency": "NOK"}`), &odd))
	require.NoError(t, json.Unmarshal([]byte(`{"amount":1e400,"currency":"NOK"}`), &other))
	require.NoError(t, json.Unmarshal([]byte(`{"amount":"0","currency":"NOK"}`), &zero))
	assert.Equal(t, "abc", odd.Text())
	assert.Equal(t, "abc NOK", odd.String())
	assert.Equal(t, "1e400", other.Text())
	assert.Equal(t, `{"amount": "abc", "currency": "NOK"}`, odd.Raw(), "kept exactly, spaces too")
	assert.False(t, odd.Equal(other))
	assert.False(t, odd.Equal(zero), "not the zero value it holds")
	assert.True(t, odd.Equal(odd))
	assert.ErrorContains(t, odd.Err(), "abc")
	// Changing the value does not make it readable.
	odd.Value = decimal.NewFromInt(5)
	assert.ErrorIs(t, odd.Validate(), ErrUnreadable)
	// A document is written back as it came.
	in := `{"balances":[{"balanceAmount":{"amount":"12.00","currency":"NOK"}},{"balanceAmount":{"amount":1e99,"currency":"NOK"}}]}`
	var doc struct {
		Balances []struct {
			BalanceAmount Amount `json:"balanceAmount"`
		} `json:"balances"`
	}
	require.NoError(t, json.Unmarshal([]byte(in), &doc))
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

// jsonValue decodes s keeping numbers as written.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func FuzzAmountJSON(f *testing.F) {
	for _, s := range []string{
		`{"amount":"150.00","currency":"NOK"}`,
		`{"amount":5,"currency":"JPY"}`,
		`{"amount":"1.005","currency":"NOK"}`,
		`{"amount":1e400,"currency":"EUR"}`,
		`{"amount":"-0.0001","currency":"CLF"}`,
		`{"amount":"abc","currency":"NOK"}`,
		`{"amount":"0.125","currency":"EUR"}`,
		`{"currency":"HRK","amount":7.5}`,
		`{"currency":"NOK"}`,
		`{"amount":""}`,
		`{"amount":"` + strings.Repeat("9", 100) + `","currency":"NOK"}`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Amount
		if err := json.Unmarshal(data, &a); err != nil {
			require.False(t, json.Valid(data), "only invalid JSON fails: %s", data)
			return
		}
		out, err := json.Marshal(a)
		if a.Err() != nil {
			require.NoError(t, err)
			var back Amount
			require.NoError(t, json.Unmarshal(out, &back))
			// encoding/json may escape HTML characters (& as \u0026):
			// the same JSON, not always the same bytes.
			require.Equal(t, jsonValue(t, a.Raw()), jsonValue(t, back.Raw()))
			require.ErrorIs(t, back.Err(), ErrUnreadable)
			return
		}
		if a.IsZero() {
			require.Equal(t, "null", strings.TrimSpace(string(data)), "only null leaves the zero Amount")
			require.Error(t, err, "the zero Amount is built in code, not valid")
			return
		}
		require.NoError(t, err, "a decoded amount always encodes: %s", data)
		var back Amount
		require.NoError(t, json.Unmarshal(out, &back))
		require.True(t, back.Equal(a), "%s -> %s", data, out)
		require.NoError(t, back.Err())
		require.Equal(t, a.Validate() == nil, back.Validate() == nil)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		require.Equal(t, string(out), string(again), "stable")
		if a.Validate() != nil && a.Currency != "NOK" {
			// Changed to a value built in code, it is validated.
			a.Currency = "NOK"
			a.Value = decimal.New(1, -3)
			_, err := json.Marshal(a)
			require.ErrorIs(t, err, ErrTooManyDigits)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add("150.00", "NOK")
	f.Add("0.0001", "CLF")
	f.Add("1e3", "JPY")
	f.Fuzz(func(t *testing.T, amount, cur string) {
		a, err := Parse(amount, cur)
		if err != nil {
			return
		}
		require.NoError(t, a.Validate())
		back, err := Parse(a.Text(), cur)
		require.NoError(t, err)
		require.True(t, back.Equal(a))
	})
}
