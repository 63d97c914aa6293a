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
