package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRetryAfterOverflow: a Retry-After in seconds too large for int64 is
// the 24-hour cap, not an absent header: the call is not retried.
func TestRetryAfterOverflow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"99999999999999999999", 24 * time.Hour, true},
		{"9223372036854775807", 24 * time.Hour, true},
		{"+99999999999999999999", 24 * time.Hour, true},
		{"-99999999999999999999", 0, false},
		{"86400", 24 * time.Hour, true},
		{"86399", 86399 * time.Second, true},
	} {
		h := http.Header{"Retry-After": {tt.value}}
		d, ok := retryAfter(h, time.Time{}, time.Now())
		assert.Equal(t, tt.want, d, tt.value)
		assert.Equal(t, tt.ok, ok, tt.value)
	}

	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "99999999999999999999")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.EqualValues(t, 1, b.count.Load(), "a wait beyond MaxRetryAfter is not retried")
}

// TestRetryAfterTable: every form a bank can give Retry-After in (delta
// seconds, the three HTTP date formats, a date in the past, a year ahead,
// in year 9999, seconds beyond int64, garbage) gives a wait between 0 and
// RetryAfterCap, or no Retry-After at all, and a time computed from it
// (now.Add(wait), as the accounts pause, refresh and riverrefresh do)
// never overflows. Before the cap applied to dates, a year ahead was a
// year and year 9999 saturated time.Duration (292 years).
func TestRetryAfterTable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	server := now.Add(-3 * time.Second) // the bank's clock runs behind
	date := func(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
	const day = 24 * time.Hour
	for _, tt := range []struct {
		name, value string
		server      time.Time
		want        time.Duration
		ok          bool
	}{
		{"seconds zero", "0", server, 0, true},
		{"seconds", "120", server, 2 * time.Minute, true},
		{"seconds with spaces", "  7 ", server, 7 * time.Second, true},
		{"seconds, explicit plus", "+30", server, 30 * time.Second, true},
		{"seconds below the cap", "86399", server, 86399 * time.Second, true},
		{"seconds at the cap", "86400", server, day, true},
		{"seconds past the cap", "86401", server, day, true},
		{"seconds, a year", "31536000", server, day, true},
		{"seconds, int64 max", "9223372036854775807", server, day, true},
		{"seconds beyond int64", "99999999999999999999999999", server, day, true},
		{"negative seconds", "-5", server, 0, false},
		{"negative beyond int64", "-99999999999999999999", server, 0, false},
		{"fraction", "1.5", server, 0, false},
		{"hexadecimal", "0x10", server, 0, false},
		{"non-ASCII digits", "١٢٣", server, 0, false},
		{"garbage", "soon", server, 0, false},
		{"empty", "", server, 0, false},
		{"date ahead", date(server.Add(90 * time.Second)), server, 90 * time.Second, true},
		{"date ahead, RFC 850", server.Add(time.Hour).UTC().Format(time.RFC850), server, time.Hour, true},
		{"date ahead, ANSI C", server.Add(time.Hour).UTC().Format(time.ANSIC), server, time.Hour, true},
		{"date ahead, no server Date", date(now.Add(time.Minute)), time.Time{}, time.Minute, true},
		{"date at the cap", date(server.Add(day)), server, day, true},
		{"date past the cap", date(server.Add(day + time.Second)), server, day, true},
		{"date a year ahead", date(server.AddDate(1, 0, 0)), server, day, true},
		{"date in year 9999", "Fri, 31 Dec 9999 23:59:59 GMT", server, day, true},
		{"date in year 9999, no server Date", "Fri, 31 Dec 9999 23:59:59 GMT", time.Time{}, day, true},
		{"date against a server Date in year 1", date(now), time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), day, true},
		{"date in the past", date(server.Add(-time.Hour)), server, 0, true},
		{"date in year 1", "Mon, 01 Jan 0001 00:00:00 GMT", server, 0, true},
		{"date, garbage day", "Xyz, 31 Feb 2026 25:61:61 GMT", server, 0, false},
	} {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		d, ok := retryAfter(h, tt.server, now)
		assert.Equal(t, tt.want, d, tt.name)
		assert.Equal(t, tt.ok, ok, tt.name)
		checkWait(t, tt.name, now, d)

		// The same through the exported reading, with the bank's Date
		// in the answer's header.
		if !tt.server.IsZero() {
			h.Set("Date", date(tt.server))
		}
		d2, ok2 := (&Error{Header: h}).RetryAfter(now)
		assert.Equal(t, tt.want, d2, tt.name+" (Error.RetryAfter)")
		assert.Equal(t, tt.ok, ok2, tt.name+" (Error.RetryAfter)")
	}
}

// checkWait asserts that d is a wait the SDK can use: within [0,
// RetryAfterCap], and now.Add(d) is a time after now (not wrapped) whose
// UnixNano (the form riverrefresh stores) is exact.
func checkWait(t *testing.T, name string, now time.Time, d time.Duration) {
	t.Helper()
	assert.GreaterOrEqual(t, d, time.Duration(0), name)
	assert.LessOrEqual(t, d, RetryAfterCap, name)
	until := now.Add(d)
	assert.False(t, until.Before(now), "%s: now.Add(%v) went back", name, d)
	assert.True(t, time.Unix(0, until.UnixNano()).Equal(until), "%s: %v does not fit in UnixNano", name, until)
}

// FuzzRetryAfter: no Retry-After and no Date, however made, gives a wait
// outside [0, RetryAfterCap] or panics.
func FuzzRetryAfter(f *testing.F) {
	for _, v := range []string{"120", "99999999999999999999", "-1", "Fri, 31 Dec 9999 23:59:59 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "soon"} {
		f.Add(v, "Sun, 06 Nov 1994 08:49:37 GMT")
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value, serverDate string) {
		h := http.Header{"Retry-After": {value}, "Date": {serverDate}}
		d, _ := (&Error{Header: h}).RetryAfter(now)
		checkWait(t, value, now, d)
	})
}

// TestRetryAfterOverSeveralLines: an answer carrying Retry-After on
// several field lines (a gateway adding its own to the bank's) asks for
// the longest readable wait among them, in whatever order they come: a
// 503 with "0" and "86400" is not retried (beyond MaxRetryAfter) and its
// error says 24 hours. On the code before, the first line alone was
// read: "0" first made the call retry at once, three times, and the
// error's RetryAfter 0, while "86400" first did neither.
func TestRetryAfterOverSeveralLines(t *testing.T) {
	t.Parallel()
	d, ok := retryAfter(http.Header{"Retry-After": {"soon", "5"}}, time.Time{}, time.Now())
	assert.True(t, ok, "an unreadable line beside a readable one")
	assert.Equal(t, 5*time.Second, d)
	for _, lines := range [][]string{{"0", "86400"}, {"86400", "0"}, {"-1", "86400"}} {
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header()["Retry-After"] = lines
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.EqualValues(t, 1, b.count.Load(), "%q: retried within a day's wait", lines)
		ra, ok := e.RetryAfter(time.Now())
		assert.True(t, ok)
		assert.Equal(t, 24*time.Hour, ra, "%q", lines)
	}
}
