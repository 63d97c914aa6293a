// Package httpdate reads the Date header of the interface strictly: an
// IMF-fixdate in GMT (RFC 7231 section 7.1.1.1, the form senders must
// write, "Sun, 06 Nov 1994 08:49:37 GMT"), the RFC 7231 full form
// docs/interface.md section 1 gives for dates in headers (the Date of
// section 5.3). It is the one strict reader of the module's tools:
// http.ParseTime also reads the obsolete RFC 850 and asctime forms, and
// reads an RFC 850 date in another zone ("CET") as if it were GMT.
package httpdate

import (
	"net/http"
	"time"
)

// Parse reads v as an IMF-fixdate in GMT; ok is false for anything else:
// another form, another zone, a weekday that is not the date's, a field
// without its leading zero, spaces around it. v is read only when it is
// exactly as long as the form ([http.TimeFormat], 29 bytes).
func Parse(v string) (t time.Time, ok bool) {
	if len(v) != len(http.TimeFormat) {
		return time.Time{}, false
	}
	t, err := time.Parse(http.TimeFormat, v)
	if err != nil || t.Format(http.TimeFormat) != v {
		return time.Time{}, false
	}
	return t, true
}
