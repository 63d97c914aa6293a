package client

import (
	"net/http"
	"time"
)

// Rules for the bank's clock. The Date header must be within 60 s of the
// bank's time (docs/interface.md section 5.3), so the client writes Date in
// the bank's time, learned from the Date of its answers. One answer must not
// be able to break the client: a gateway error page dated years ahead would
// otherwise make every later Date wrong and every later call fail. These
// constants are the one place the limits live.
const (
	// maxClockSkew is how far the Date header may be from the bank's
	// clock (docs/interface.md section 5.3).
	maxClockSkew = 60 * time.Second
	// maxClockOffset caps the learned offset: an answer whose Date is
	// further than this from the local clock is ignored. A TPP server that
	// far off needs its clock fixed, not hidden. Under VerifyRequired a
	// signed answer whose Date is further off is refused (checkFresh).
	maxClockOffset = 15 * time.Minute
	// clockTolerance is how close two observations must be to agree: the
	// Date header has one-second resolution, plus network latency.
	clockTolerance = 5 * time.Second
	// maxDateLength bounds a Date field line the client reads: the
	// longest form http.ParseTime reads (RFC 850, with a weekday such as
	// "Wednesday") is 33 bytes.
	maxDateLength = 40
)

// answerDate is the one reading of the Date header of a bank's answer:
// every reader of the bank's time goes through it (the learned clock and
// the clock-skew retry, observeClock; the freshness of a signed answer,
// checkFresh; [Meta.Date]; the date a Retry-After date is measured
// against, [Error.RetryAfter] and the retry loop). Date is one value, but
// an answer may carry it on several field lines (a gateway adding its
// own to the bank's). Several lines are the bank's time only when each
// is readable and all say the same instant; lines that disagree, or an
// unreadable one beside readable ones, give no Date at all (false),
// whatever their order: which one is the bank's is not known, and a line
// read as the bank's that is not could make a payment's refusal look
// like a clock-skew refusal, teach the client a wrong clock, or pass a
// stale signed answer as fresh. A line is read by httpDate.
func answerDate(h http.Header) (time.Time, bool) {
	var date time.Time
	read := false
	for _, v := range h.Values("Date") {
		t, ok := httpDate(v)
		if !ok {
			return time.Time{}, false
		}
		if read && !t.Equal(date) {
			return time.Time{}, false
		}
		date, read = t, true
	}
	return date, read
}

// httpDate is the SDK's one reading of an HTTP date a bank sends (Date,
// and Retry-After in its date form): http.ParseTime (the three forms RFC
// 9110 makes a recipient accept), within maxDateLength bytes, and only in
// GMT. The obsolete RFC 850 form naming another zone ("CET", "EST") is
// unreadable (false): http.ParseTime reads it as if it were GMT where
// the local time zone does not know the abbreviation, and with its
// offset where it does, so the same answer would mean another instant on
// another machine.
func httpDate(v string) (time.Time, bool) {
	if len(v) > maxDateLength {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, false
	}
	if zone, offset := t.Zone(); offset != 0 || zone != "GMT" && zone != "UTC" {
		return time.Time{}, false
	}
	return t, true
}

// observeClock reads a response's Date header (error answers included),
// as answerDate reads it, and returns the bank's time and whether the
// header was usable. When trusted
// (under VerifyRequired: the answer verified) it keeps re-learning the offset between the bank's clock and the local one:
//   - an offset beyond maxClockOffset is ignored;
//   - one within clockTolerance of the current offset is adopted at once
//     (drift, the one-second resolution of Date);
//   - a larger change is adopted only when a second answer agrees with it
//     within clockTolerance; until then it is a candidate.
//
// So a single poisoned Date changes nothing, and a client whose clock is
// off adopts the bank's time after two agreeing answers. The skew retry
// (retryForClockSkew) uses the candidate for its one new attempt, whose
// answer then confirms it.
func (c *Client) observeClock(h http.Header, trusted bool) (server time.Time, ok bool) {
	server, ok = answerDate(h)
	if !ok {
		return time.Time{}, false
	}
	d := server.Sub(c.cfg.clock())
	if !trusted || d > maxClockOffset || d < -maxClockOffset {
		return server, true
	}
	if abs(d-time.Duration(c.offset.Load())) <= clockTolerance {
		c.offset.Store(int64(d))
		c.clockMu.Lock()
		c.candidate, c.hasCandidate = 0, false
		c.clockMu.Unlock()
		return server, true
	}
	c.clockMu.Lock()
	defer c.clockMu.Unlock()
	if c.hasCandidate && abs(d-c.candidate) <= clockTolerance {
		c.offset.Store(int64(d))
		c.candidate, c.hasCandidate = 0, false
	} else {
		c.candidate, c.hasCandidate = d, true
	}
	return server, true
}

// skewOffset returns the offset to sign the skew retry with: the bank's
// time of the refusing answer minus the local clock, when it is within
// maxClockOffset.
func (c *Client) skewOffset(server time.Time) (time.Duration, bool) {
	d := server.Sub(c.cfg.clock())
	if d > maxClockOffset || d < -maxClockOffset {
		return 0, false
	}
	return d, true
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// retryForClockSkew is the one rule that may send a request again, POSTs
// included, outside the retry policy: the bank answered 400 and its Date
// is more than 60 s from the Date the request carried. The bank checks
// Date before it processes anything, so a 400 means nothing was done; one
// new attempt, signed in the bank's time of that answer, will pass. It
// happens at most once per call, with no wait, and does not count against
// RetryPolicy.MaxRetries. When the client checks the bank's signatures
// (bank certificates configured, verification not off), the 400 must
// verify first: one that does not ends the call with the verification
// failure, so a forged 400 cannot make the client send a payment again.
// Under VerifyRequired the client learns the bank's clock only from
// answers that verify.
func retryForClockSkew(status int, sent, server time.Time) bool {
	if status != http.StatusBadRequest || sent.IsZero() || server.IsZero() {
		return false
	}
	d := server.Sub(sent)
	return d > maxClockSkew || d < -maxClockSkew
}
