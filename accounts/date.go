package accounts

import (
	"time"

	"github.com/tppkit/psd2/date"
)

// Date is [date.Date], the SDK's one calendar date type (ISO 8601
// YYYY-MM-DD, docs/interface.md section 1.7), without time zone, under
// the name the account documents use. The zero Date means absent: pending
// transactions often have no valueDate. It marshals as "YYYY-MM-DD" (null
// when zero) and reads a date-time as [ParseDate] does.
type Date = date.Date

// ParseDate reads "YYYY-MM-DD". A date-time is accepted too. One with an
// offset or Z is an instant, whose date is taken in the bank's time zone,
// Europe/Oslo: "2025-03-12T23:30:00Z" is 2025-03-13, already the next day
// in Oslo (UTC+1 in winter, UTC+2 in summer). One without an offset
// ("2025-03-12T23:30:00") keeps its date part as written. A date-time
// with an offset that cannot be read is an error.
func ParseDate(s string) (Date, error) { return date.Parse(s) }

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date { return date.Of(t) }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
