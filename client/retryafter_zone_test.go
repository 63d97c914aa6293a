package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRetryAfterDateOnlyInGMT: a Retry-After date is read as the Date
// header is (answerDate): in GMT only, within maxDateLength bytes. The
// obsolete RFC 850 form naming another zone was read as if it were GMT
// wherever the local time zone does not know the abbreviation ("EST" at
// 20:00 is 01:00 GMT the next day: a retry five hours early) and with the
// zone's offset where it does, so the same answer meant another wait on
// another machine. It is no Retry-After now, as an unreadable Date is no
// Date; the same instant in GMT is still read.
func TestRetryAfterDateOnlyInGMT(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 19, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"RFC 850 in GMT", "Friday, 04-Dec-26 20:00:00 GMT", time.Hour, true},
		{"IMF-fixdate", "Fri, 04 Dec 2026 20:00:00 GMT", time.Hour, true},
		{"asctime", "Fri Dec  4 20:00:00 2026", time.Hour, true},
		{"RFC 850 in EST", "Friday, 04-Dec-26 20:00:00 EST", 0, false},
		{"RFC 850 in CET", "Friday, 04-Dec-26 20:00:00 CET", 0, false},
		{"RFC 850 in UTC", "Friday, 04-Dec-26 20:00:00 UTC", time.Hour, true},
		{"RFC 850 in MST", "Friday, 04-Dec-26 20:00:00 MST", 0, false},
	} {
		d, ok := retryAfter(http.Header{"Retry-After": {tt.value}}, time.Time{}, now)
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.want, d, tt.name)
	}
}
