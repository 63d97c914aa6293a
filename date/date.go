// Package date is the one calendar date type of the SDK, [Date], the
// date of the interface's JSON documents (ISO 8601 YYYY-MM-DD,
// docs/interface.md section 1.7): an account's booking and value dates, a
// payment's requested execution date, a standing order's start and end.
// A date-time with an offset in a date field is read as its date in the
// bank's time zone, Europe/Oslo ([Oslo]).
//
// It also keeps the Norwegian banking calendar, the days banks settle
// payments on ([IsBankingDay], [AddBankingDays], [NorwegianHoliday],
// [Easter]), in which package reconcile counts a payment's booking
// window.
//
// Like money, it is a leaf: it imports no other package of the SDK but
// an internal JSON helper, so the client and every service (accounts,
// payments, txsync, ...) can use it and imports keep pointing one way
// (signing, money, date <- client <- services).
package date

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the bank's zone without zone data on the machine

	"github.com/tppkit/psd2/internal/jsontext"
)

// Date is a calendar date of a bank document (ISO 8601 YYYY-MM-DD,
// docs/interface.md section 1.7), without time zone. The zero Date means absent: pending
// transactions often have no valueDate.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// bankZoneName is the time zone the platform's banks count dates in, the
// one place the SDK names it (payments counts "today" in it too).
// ASSUMPTION (docs/interface.md is silent): the platform's banks are
// Norwegian and count dates in Norwegian time.
const bankZoneName = "Europe/Oslo"

// Oslo returns the bank's time zone, Europe/Oslo (UTC+1 in winter, UTC+2
// in summer), loaded once from the embedded zone data (time/tzdata), so
// that it is right on every machine, with or without zone data installed.
var Oslo = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocation(bankZoneName)
	if err != nil {
		// Unreachable with time/tzdata embedded; a fixed UTC+1 is the
		// zone's winter time rather than a panic.
		return time.FixedZone("CET", 60*60)
	}
	return loc
})

// dateTimeLayouts are the date-time forms with an offset that Parse
// reads: RFC 3339 (fractional seconds optional) and the ISO 8601 forms
// without seconds, without the offset's colon or with hours only.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999Z07",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
}

// localDateTimeLayouts are the forms of a date-time without an offset
// that [Parse] reads: with seconds (fractional seconds optional) or
// without.
var localDateTimeLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
}

// Parse reads "YYYY-MM-DD". A date-time is accepted too: one with an
// offset or Z ("2025-03-12T23:30:00Z") is an instant, whose date is taken
// in the bank's time zone, Europe/Oslo ([Oslo]; 2025-03-13 here); one
// without ("2025-03-12T23:30:00") is already the bank's local time, and
// its date part is kept as written. A date-time that cannot be read, with
// an offset or without ("2025-03-12T25:00:00"), is an error.
func Parse(s string) (Date, error) {
	if len(s) > 10 && s[10] == 'T' {
		if rest := s[11:]; strings.HasSuffix(rest, "Z") || strings.HasSuffix(rest, "z") || strings.ContainsAny(rest, "+-") {
			for _, layout := range dateTimeLayouts {
				if t, err := time.Parse(layout, strings.ToUpper(s)); err == nil {
					// The instant's date in Oslo may leave the years a
					// YYYY-MM-DD date can write ("9999-12-31T23:30:00Z"
					// is year 10000): not a date of this type.
					d := Of(t.In(Oslo()))
					if d.Year < 0 || d.Year > 9999 {
						return Date{}, fmt.Errorf("invalid date-time %q: its date in the bank's time zone is outside years 0000 to 9999", clip(s))
					}
					return d, nil
				}
			}
			return Date{}, fmt.Errorf("invalid date-time %q", clip(s))
		}
		for _, layout := range localDateTimeLayouts {
			if _, err := time.Parse(layout, s); err == nil {
				return Parse(s[:10])
			}
		}
		return Date{}, fmt.Errorf("invalid date-time %q", clip(s))
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("invalid date %q", clip(s))
	}
	return Of(t), nil
}

// Of returns the date of t in t's location.
func Of(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// IsZero reports whether d is absent.
func (d Date) IsZero() bool { return d == Date{} }

// String returns "YYYY-MM-DD", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Time returns midnight of d in loc (UTC when loc is nil).
func (d Date) Time(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool {
	return d.Time(nil).Before(e.Time(nil))
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(d.String())
}

// UnmarshalJSON reads "YYYY-MM-DD" (or a date-time, as [Parse] does);
// null and "" leave the zero Date.
func (d *Date) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*d = Date{}
		return nil
	}
	s, ok := jsontext.PlainString(data)
	if !ok {
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("date is not a string")
		}
	}
	if s == "" {
		*d = Date{}
		return nil
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
