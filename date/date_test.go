package date

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAndJSON(t *testing.T) {
	t.Parallel()
	d, err := Parse("2025-03-12")
	require.NoError(t, err)
	assert.Equal(t, Date{2025, time.March, 12}, d)
	d2, err := Parse("2025-03-12T23:30:00")
	require.NoError(t, err)
	assert.Equal(t, d, d2, "a date-time without offset keeps its date part as written")
	for _, bad := range []string{"", "2025-13-01", "2025-02-30", "12.03.2025", "2025-3-1"} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}

	b, err := json.Marshal(struct {
		D Date  `json:"d"`
		Z Date  `json:"z,omitzero"`
		P *Date `json:"p"`
	}{D: d})
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"2025-03-12","p":null}`, string(b))

	var got struct{ A, B, C Date }
	require.NoError(t, json.Unmarshal([]byte(`{"A":"2024-02-29","B":null,"C":""}`), &got))
	assert.Equal(t, "2024-02-29", got.A.String())
	assert.True(t, got.B.IsZero())
	assert.True(t, got.C.IsZero())
	assert.Error(t, json.Unmarshal([]byte(`{"A":20240229}`), &got))
	assert.True(t, Of(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)).Before(got.A))
}

// TestParseDateTimeInOslo: a date-time with an offset or Z is an instant,
// whose date is the one in the bank's time zone, Europe/Oslo (UTC+1 in
// winter, UTC+2 in summer), around midnight and on the days summer time
// starts (2025-03-30) and ends (2025-10-26); one without an offset keeps
// its date as written, even a local time that does not exist in Oslo.
// A date-time whose date in Oslo leaves the years a YYYY-MM-DD date
// writes is refused, not read as year 10000 or -1.
func TestParseDateTimeOutsideYears(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"9999-12-31T23:30:00Z", "9999-12-31T23:00:00+00:00", "0000-01-01T00:00:00+14:00", "0000-01-01T00:59:59+02:00"} {
		_, err := Parse(in)
		assert.ErrorContains(t, err, "outside years 0000 to 9999", in)
	}
	for in, want := range map[string]string{"9999-12-31T22:59:59Z": "9999-12-31", "0000-01-01T12:00:00Z": "0000-01-01"} {
		d, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, d.String(), in)
	}
}

func TestParseDateTimeInOslo(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Europe/Oslo", Oslo().String())
	for _, tt := range []struct{ in, want string }{
		// Winter, UTC+1.
		{"2025-03-12T23:30:00Z", "2025-03-13"},
		{"2025-03-12T22:59:59Z", "2025-03-12"},
		{"2025-03-12T23:00:00Z", "2025-03-13"},
		{"2025-03-12T23:30:00-05:00", "2025-03-13"},
		{"2025-03-12T10:00:00+01:00", "2025-03-12"},
		{"2025-03-13T00:30:00+14:00", "2025-03-12"},
		{"2024-12-31T23:00:00Z", "2025-01-01"},
		{"2024-12-31T22:59:59.999Z", "2024-12-31"},
		// Summer, UTC+2.
		{"2025-06-30T22:00:00Z", "2025-07-01"},
		{"2025-06-30T21:59:59Z", "2025-06-30"},
		{"2025-07-01T00:30:00+02:00", "2025-07-01"},
		// 2025-03-30: 02:00 CET becomes 03:00 CEST; the day runs from
		// 23:00Z the day before to 22:00Z.
		{"2025-03-29T22:59:59Z", "2025-03-29"},
		{"2025-03-29T23:00:00Z", "2025-03-30"},
		{"2025-03-30T01:30:00Z", "2025-03-30"},
		{"2025-03-30T21:59:59Z", "2025-03-30"},
		{"2025-03-30T22:00:00Z", "2025-03-31"},
		// 2025-10-26: 03:00 CEST becomes 02:00 CET; the day runs from
		// 22:00Z the day before to 23:00Z.
		{"2025-10-25T21:59:59Z", "2025-10-25"},
		{"2025-10-25T22:00:00Z", "2025-10-26"},
		{"2025-10-26T22:59:59Z", "2025-10-26"},
		{"2025-10-26T23:00:00Z", "2025-10-27"},
		// Other forms of an offset.
		{"2025-03-12T23:30:00.123456Z", "2025-03-13"},
		{"2025-03-12T23:30:00z", "2025-03-13"},
		{"2025-03-12T23:30:00+0000", "2025-03-13"},
		{"2025-03-12T23:30:00+00", "2025-03-13"},
		{"2025-03-12T23:30Z", "2025-03-13"},
		// Without an offset: the bank's local time, kept as written.
		{"2025-03-12T23:30:00", "2025-03-12"},
		{"2025-03-12T00:30:00.5", "2025-03-12"},
		{"2025-03-30T02:30:00", "2025-03-30"},
		{"2025-10-26T23:30:00", "2025-10-26"},
	} {
		d, err := Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, d.String(), tt.in)
	}
	for _, bad := range []string{"2025-03-12T25:00:00Z", "2025-02-30T10:00:00Z", "2025-03-12Tnoon+", "2025-03-12T10:00:00+25:00", "2025-03-12TZ", "2025-03-12t23:30:00Z"} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}

	var got struct{ A, B Date }
	require.NoError(t, json.Unmarshal([]byte(`{"A":"2025-03-12T23:30:00Z","B":"2025-03-12T23:30:00"}`), &got))
	assert.Equal(t, Date{2025, time.March, 13}, got.A)
	assert.Equal(t, Date{2025, time.March, 12}, got.B)
}
