package accounts_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
)

// TestDateTimeInBankZone: a date field carrying a date-time with an
// offset is read as the date in the bank's time zone, Europe/Oslo; one
// without an offset keeps its date as written.
func TestDateTimeInBankZone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"2025-03-12T23:30:00Z", "2025-03-13"},      // 00:30 CET
		{"2025-03-12T22:30:00Z", "2025-03-12"},      // 23:30 CET
		{"2025-07-12T22:30:00Z", "2025-07-13"},      // 00:30 CEST
		{"2025-07-12T21:30:00Z", "2025-07-12"},      // 23:30 CEST
		{"2025-03-12T18:30:00-05:00", "2025-03-13"}, // 23:30Z
		{"2025-03-12T23:30:00", "2025-03-12"},       // local: as written
	} {
		d, err := date.Parse(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, d.String(), tt.in)
	}

	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"bookingDate":"2025-10-26T23:15:00Z","valueDate":"2025-10-26T23:15:00","transactionAmount":{"amount":"1.00","currency":"NOK"}}`), &tr))
	assert.Equal(t, "2025-10-27", tr.BookingDate.String(), "00:15 CET on the 27th")
	assert.Equal(t, "2025-10-26", tr.ValueDate.String())
}
