// Package isodate is the calendar date of the interface's JSON documents
// (ISO 8601 YYYY-MM-DD, docs/interface.md section 1.7), shared by the accounts and payments
// packages, which export it under their own names.
package isodate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

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

// Parse reads "YYYY-MM-DD". A date-time ("2025-03-12T10:00:00+01:00")
// is accepted too; its date part is kept as written.
func Parse(s string) (Date, error) {
	if len(s) > 10 && s[10] == 'T' {
		s = s[:10]
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

// UnmarshalJSON reads "YYYY-MM-DD" (or a date-time, keeping its date);
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
