package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestVerifyDateIMFFixdateOnly: a Date in a form other than IMF-fixdate
// in GMT is DATE_FORMAT, however close to the reference time it names:
// RFC 850 and asctime dates (which http.ParseTime reads), an RFC 850 date
// in CET (read as GMT, an hour off), a wrong weekday, a missing leading
// zero. Before, verify read every one of them as a date and passed it.
// An IMF-fixdate in GMT passes.
func TestVerifyDateIMFFixdateOnly(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) // a Sunday
	for _, d := range []string{
		"Sunday, 01-Nov-26 12:00:00 GMT", // RFC 850
		"Sunday, 01-Nov-26 12:00:00 CET", // RFC 850, another zone
		"Sun Nov  1 12:00:00 2026",       // asctime
		"Mon, 01 Nov 2026 12:00:00 GMT",  // the wrong weekday
		"Sun, 1 Nov 2026 12:00:00 GMT",   // no leading zero
		"Sun, 01 Nov 2026 12:00:00 UTC",  // not GMT
		"Sun, 01 Nov 2026 12:00:00 +0000",
		" Sun, 01 Nov 2026 12:00:00 GMT",
	} {
		var codes []string
		req := &http.Request{Header: http.Header{"Date": {d}}}
		checkDate(req, now, time.Minute, func(code, _, _ string, _ ...any) { codes = append(codes, code) })
		assert.Equal(t, []string{codeDateFormat}, codes, "%q", d)
	}
	var codes []string
	req := &http.Request{Header: http.Header{"Date": {now.Format(http.TimeFormat)}}}
	checkDate(req, now, time.Minute, func(code, _, _ string, _ ...any) { codes = append(codes, code) })
	assert.Empty(t, codes, "IMF-fixdate")
}
