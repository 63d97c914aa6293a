package date

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRefusesMalformedLocalDateTime: a date-time without an offset
// is the bank's local time, its date kept as written; but only when the
// part after "T" is a time. "2025-03-12T25:00:00" is refused as
// "2025-03-12T25:00:00Z" is, not read as 12 March, and so is any text
// after the "T" that is no time of day.
func TestParseRefusesMalformedLocalDateTime(t *testing.T) {
	for _, bad := range []string{"2025-03-12T25:00:00", "2025-03-12T10:61:00", "2025-03-12T10:00:61", "2025-03-12Tnoon",
		"2025-03-12T", "2025-03-12T10", "2025-03-12T10:00:00garbage", "2025-02-30T10:00:00", "2025-03-12T10:00:00.", "2025-03-12T10:00:00 "} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}
	for in, want := range map[string]string{
		"2025-03-12T23:30:00":           "2025-03-12",
		"2025-03-12T23:30":              "2025-03-12",
		"2025-03-12T00:30:00.5":         "2025-03-12",
		"2025-03-12T00:30:00.123456789": "2025-03-12",
	} {
		d, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, d.String(), in)
	}
}
