package emulator

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The Date header carries whole seconds (RFC 7231), so the 60-second window
// of docs/interface.md section 5.3 is measured in whole seconds: a TPP
// whose clock is 59.5 s behind the bank's writes a Date 60 whole seconds
// before the bank's second and is accepted, whatever the fraction of the
// bank's second; a Date 61 s off is refused either way.
func TestDateWindowInWholeSeconds(t *testing.T) {
	t.Parallel()
	for _, frac := range []time.Duration{0, 300 * time.Millisecond, 999 * time.Millisecond} {
		now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC).Add(frac)
		s := startServer(t, WithClock(fixedClock(now).Now))
		c := newTPPClient(t, s, "Date TPP")
		dateAt := func(off time.Duration) reqOpt {
			return hdr("Date", now.Add(off).UTC().Format(http.TimeFormat))
		}
		for _, off := range []time.Duration{-59500 * time.Millisecond, 59500 * time.Millisecond, -60 * time.Second, 60 * time.Second} {
			r := c.get("/v1/sandbox/customers", dateAt(off))
			assert.Equal(t, http.StatusOK, r.status, "bank at +%v, TPP's clock off by %v: %s", frac, off, r.body)
		}
		for _, off := range []time.Duration{-62 * time.Second, 62 * time.Second} {
			r := c.get("/v1/sandbox/customers", dateAt(off))
			assert.Equal(t, http.StatusBadRequest, r.status, "bank at +%v, TPP's clock off by %v", frac, off)
			code, at := r.problem(t)
			assert.Equal(t, []string{"FORMAT_ERROR", "Date"}, []string{code, at})
		}
	}
}

// TestDateOnlyInGMT: an HTTP date is in GMT (RFC 7231 section 7.1.1.1:
// IMF-fixdate, and the obsolete RFC 850 and asctime forms, all "GMT";
// docs/interface.md section 5.3 measures the Date against the bank's
// clock). On the code before, http.ParseTime read an RFC 850 date in
// any zone abbreviation ("CET", "PST", "UTC") as if it were GMT: a Date
// whose zone put it an hour or more off the bank's clock was accepted,
// and the TPP's correct CET time was refused only because it was read as
// GMT. Such a Date is not an HTTP date: 400 FORMAT_ERROR at Date, as
// any other malformed Date. The three forms in GMT are accepted.
func TestDateOnlyInGMT(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	s := startServer(t, WithClock(fixedClock(now).Now))
	c := newTPPClient(t, s, "Zone TPP")
	for _, d := range []string{
		"Sat, 14 Mar 2026 10:00:00 GMT",    // IMF-fixdate
		"Saturday, 14-Mar-26 10:00:00 GMT", // RFC 850
		"Sat Mar 14 10:00:00 2026",         // asctime
	} {
		r := c.get("/v1/sandbox/customers", hdr("Date", d))
		assert.Equal(t, http.StatusOK, r.status, "%s: %s", d, r.body)
	}
	for _, d := range []string{
		"Saturday, 14-Mar-26 10:00:00 CET", // 09:00 GMT: an hour behind
		"Saturday, 14-Mar-26 10:00:00 PST", // 18:00 GMT
		"Saturday, 14-Mar-26 10:00:00 UTC", // not the form RFC 7231 gives
		"Sat, 14 Mar 2026 10:00:00 +0000",
		"Sat, 14 Mar 2026 11:00:00 CET",
	} {
		r := c.get("/v1/sandbox/customers", hdr("Date", d))
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", d, r.body)
		if r.status == http.StatusBadRequest {
			code, at := r.problem(t)
			assert.Equal(t, []string{"FORMAT_ERROR", "Date"}, []string{code, at}, d)
		}
	}
}
