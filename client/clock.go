package client

import (
	"net/http"
	"time"
)

// maxClockSkew is how far the Date header may be from the bank's clock
// (SERVICE.md 5.3).
const maxClockSkew = 60 * time.Second

// learnClock records the offset between the bank's clock, read from a
// response's Date header (error answers included), and the client's clock,
// so that later Date headers are written in the bank's time. It returns
// the bank's time and whether the header was usable.
func (c *Client) learnClock(h http.Header) (time.Time, bool) {
	v := h.Get("Date")
	if v == "" {
		return time.Time{}, false
	}
	server, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, false
	}
	// Date has one-second resolution; the offset is good to about a second
	// plus the network latency, well inside the 60 s window.
	c.offset.Store(int64(server.Sub(c.cfg.clock())))
	return server, true
}

// retryForClockSkew is the one rule that may send a request again, POSTs
// included, outside the retry policy: the bank answered 400 and its Date
// is more than 60 s from the Date the request carried. The bank checks
// Date before it processes anything, so a 400 means nothing was done; the
// client has just learned the bank's clock (learnClock), and one new
// attempt, signed with a corrected Date, will pass. It happens at most
// once per call, with no wait, and does not count against
// RetryPolicy.MaxRetries.
func retryForClockSkew(status int, sent, server time.Time) bool {
	if status != http.StatusBadRequest || sent.IsZero() || server.IsZero() {
		return false
	}
	d := server.Sub(sent)
	return d > maxClockSkew || d < -maxClockSkew
}
