package accounts

import (
	"time"

	"github.com/tppkit/psd2/internal/isodate"
)

// Date is a calendar date of a bank document (ISO 8601 YYYY-MM-DD,
// docs/interface.md section 1.7), without time zone. The zero Date means absent: pending
// transactions often have no valueDate. It marshals as "YYYY-MM-DD" (null
// when zero) and reads a date-time by keeping its date part.
type Date = isodate.Date

// ParseDate reads "YYYY-MM-DD". A date-time ("2025-03-12T10:00:00+01:00")
// is accepted too; its date part is kept as written.
func ParseDate(s string) (Date, error) { return isodate.Parse(s) }

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date { return isodate.Of(t) }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
