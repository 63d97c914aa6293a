package refresh

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
)

func mustDate(s string) date.Date {
	d, err := date.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestCursorNewEntries(t *testing.T) {
	t.Parallel()
	c := Cursor{Date: mustDate("2025-03-10"), From: mustDate("2025-03-05"), Seen: []string{"a", "b", "old"}}
	legacy := Cursor{Date: mustDate("2025-03-10"), Seen: []string{"a", "b"}} // an earlier version's
	tests := []struct {
		date      string
		id        string
		new, lnew bool // new to c, to legacy
	}{
		{"2025-03-04", "x", false, false}, // before the window
		{"2025-03-07", "x", true, false},  // booked late under an earlier day
		{"2025-03-07", "old", false, false},
		{"2025-03-10", "a", false, false}, // seen
		{"2025-03-10", "c", true, true},   // same day, not seen
		{"2025-03-11", "a", false, true},  // seen, and booked again under a later day
		{"2025-03-11", "z", true, true},
		{"2025-03-10", "", true, true}, // no id: on the cursor's day or later
		{"2025-03-09", "", false, false},
		{"", "a", true, true}, // no date: cannot tell
	}
	for _, tt := range tests {
		var d date.Date
		if tt.date != "" {
			d = mustDate(tt.date)
		}
		assert.Equal(t, tt.new, c.isNew(d, tt.id), "%s %s", tt.date, tt.id)
		assert.Equal(t, tt.lnew, legacy.isNew(d, tt.id), "legacy %s %s", tt.date, tt.id)
	}
	assert.True(t, Cursor{}.isNew(mustDate("2000-01-01"), "a"), "the zero cursor has seen nothing")
}

func TestCursorAdvance(t *testing.T) {
	t.Parallel()
	c := Cursor{RefreshedAt: time.Unix(1, 0), Date: mustDate("2025-03-10"), From: mustDate("2025-03-05"), Seen: []string{"a"}}
	dates := func(ds ...string) []date.Date {
		out := make([]date.Date, len(ds))
		for i, d := range ds {
			out[i] = mustDate(d)
		}
		return out
	}

	// The read covers the window: its ids from the window's first day on.
	next := c.advance(dates("2025-03-10", "2025-03-10", "2025-03-10", "2025-03-04", "2025-03-06"), []string{"a", "b", "", "gone", "c"}, date.Date{})
	assert.Equal(t, Cursor{RefreshedAt: c.RefreshedAt, Date: mustDate("2025-03-10"), From: mustDate("2025-03-05"), Seen: []string{"a", "b", "c"}}, next)
	assert.Equal(t, []string{"a"}, c.Seen, "the old cursor is unchanged")

	// A newer day moves the window.
	next = c.advance(dates("2025-03-12", "2025-03-06", "2025-03-12", "2025-03-08"), []string{"x", "b", "y", "z"}, date.Date{})
	assert.Equal(t, Cursor{RefreshedAt: c.RefreshedAt, Date: mustDate("2025-03-12"), From: mustDate("2025-03-07"), Seen: []string{"x", "y", "z"}}, next)

	// An earlier version's cursor (Seen: the ids of its Date) gains a window.
	legacy := Cursor{Date: mustDate("2025-03-10"), Seen: []string{"a"}}
	next = legacy.advance(dates("2025-03-10", "2025-03-08"), []string{"b", "c"}, date.Date{})
	assert.Equal(t, Cursor{Date: mustDate("2025-03-10"), From: mustDate("2025-03-05"), Seen: []string{"a", "b", "c"}}, next)

	// A first read since a date (Job.Since) later than the window's
	// start: the window starts at that date, so the next read, from the
	// window's start, does not report the older entries it never saw as
	// new.
	since := mustDate("2025-03-09")
	first := Cursor{}.advance(dates("2025-03-10", "2025-03-09"), []string{"p", "q"}, since)
	assert.Equal(t, since, first.From)
	assert.False(t, first.isNew(mustDate("2025-03-08"), "older"), "before the first read: not new")
	assert.False(t, first.isNew(mustDate("2025-03-09"), "q"))
	assert.True(t, first.isNew(mustDate("2025-03-10"), "r"))
	// A read from before the window changes nothing.
	assert.Equal(t, mustDate("2025-03-05"), Cursor{}.advance(dates("2025-03-10"), []string{"p"}, mustDate("2025-03-01")).From)

	// Nothing read: the cursor stays.
	assert.Equal(t, c, c.advance(nil, nil, date.Date{}))
	assert.Equal(t, legacy, legacy.advance(nil, nil, date.Date{}))

	// It encodes to JSON and back.
	b, err := json.Marshal(next)
	require.NoError(t, err)
	var back Cursor
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.RefreshedAt.Equal(next.RefreshedAt))
	assert.Equal(t, next.Date, back.Date)
	assert.Equal(t, next.From, back.From)
	assert.Equal(t, next.Seen, back.Seen)
	b, err = json.Marshal(Cursor{})
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b))
}

// An entry the bank books after a refresh under an earlier day (a batch
// after a weekend, under the Friday) is reported by the next refresh, once.
func TestCursorBookedLateUnderEarlierDay(t *testing.T) {
	t.Parallel()
	fri, mon := mustDate("2025-03-07"), mustDate("2025-03-10")
	var c Cursor
	read := func(ds []date.Date, ids []string) []string {
		var out []string
		for i := range ds {
			if c.isNew(ds[i], ids[i]) {
				out = append(out, ids[i])
			}
		}
		c = c.advance(ds, ids, date.Date{})
		return out
	}
	// Monday morning: Friday's entry and one of Monday's.
	assert.Equal(t, []string{"f1", "m1"}, read([]date.Date{fri, mon}, []string{"f1", "m1"}))
	// Monday night the bank books the weekend's card batch under Friday.
	assert.Equal(t, []string{"f2"}, read([]date.Date{fri, fri, mon}, []string{"f1", "f2", "m1"}))
	assert.Empty(t, read([]date.Date{fri, fri, mon}, []string{"f1", "f2", "m1"}), "reported once")
	// The next query starts lookbackDays before the cursor's date.
	assert.Equal(t, "2025-03-05", from(&Job{Cursor: c}, mon.Time(time.UTC)).String())
}

func TestFromDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		since, cursor, want string
	}{
		{"", "", ""},
		{"2025-06-01", "", "2025-06-01"},
		{"", "2025-06-20", "2025-06-15"},           // lookbackDays before the cursor's date
		{"2025-06-01", "2025-06-20", "2025-06-15"}, // the later of the two
		{"2025-06-25", "2025-06-20", "2025-06-25"},
		{"2025-01-01", "", "2025-04-02"}, // 89 days back at most
	}
	for _, tt := range tests {
		var j Job
		if tt.since != "" {
			j.Since = mustDate(tt.since)
		}
		if tt.cursor != "" {
			j.Cursor.Date = mustDate(tt.cursor)
		}
		assert.Equal(t, tt.want, from(&j, now).String(), "%+v", tt)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	bankErr := func(status int, code string, header http.Header, links client.Links) error {
		e := &client.Error{Operation: "accounts.Balances", StatusCode: status, Header: header, Links: links}
		if code != "" {
			e.Messages = []client.TPPMessage{{Category: "ERROR", Code: code}}
		}
		return e
	}
	sca := client.Links{"scaRedirect": {Href: "https://bank.example/sca"}}
	retry := http.Header{"Retry-After": {"7"}}
	tests := []struct {
		name string
		err  error
		want Outcome
		rate bool
	}{
		{"budget", &budget.ExhaustedError{RetryAt: time.Unix(5, 0)}, BudgetExhausted, false},
		{"bank budget", bankErr(429, "ACCESS_EXCEEDED", nil, nil), BudgetExhausted, false},
		{"bank budget with retry", bankErr(429, "ACCESS_EXCEEDED", retry, nil), BudgetExhausted, false},
		{"429 bare", bankErr(429, "", nil, nil), BudgetExhausted, false},
		{"429 another code, no retry", bankErr(429, "TOO_MANY", nil, nil), Transient, false},
		{"rate limit", bankErr(429, "TOO_MANY", retry, nil), Transient, true},
		{"sca redirect", bankErr(401, "CONSENT_INVALID", nil, sca), ReconnectNeeded, false},
		{"consent expired", bankErr(401, "CONSENT_EXPIRED", nil, nil), ReconnectNeeded, false},
		{"revoked", bankErr(403, "CONSENT_UNKNOWN", nil, nil), ReconnectNeeded, false},
		{"psu unknown", bankErr(401, "PSU_CREDENTIALS_INVALID", nil, nil), ReconnectNeeded, false},
		{"certificate", bankErr(401, "CERTIFICATE_INVALID", nil, nil), Refused, false},
		{"not found", bankErr(404, "RESOURCE_UNKNOWN", nil, nil), Refused, false},
		{"format", bankErr(400, "FORMAT_ERROR", nil, nil), Refused, false},
		{"500", bankErr(500, "SYSTEM_ERROR", nil, nil), Transient, false},
		{"503", bankErr(503, "", nil, nil), Transient, false},
		{"not sent", &client.NotSentError{Operation: "x", Err: errors.New("dial")}, Transient, false},
		{"network", errors.New("connection reset"), Transient, false},
		{"invalid query", &client.NotSentError{Err: &client.ValidationError{Field: "bookingStatus", Err: accounts.ErrInvalidQuery}}, Refused, false},
		{"missing header", &client.NotSentError{Err: &client.ValidationError{Field: "TPP-Redirect-URI"}}, Refused, false},
		{"consent ended", ErrConsentEnded, ReconnectNeeded, false},
	}
	for _, tt := range tests {
		v := classify(tt.err)
		assert.Equal(t, tt.want, v.outcome, tt.name)
		assert.Equal(t, tt.rate, v.rateLimit, tt.name)
	}
	v := classify(bankErr(429, "TOO_MANY", retry, nil))
	assert.True(t, v.hasRetry)
	assert.Equal(t, 7*time.Second, v.retryAfter)

	assert.False(t, sent(&client.NotSentError{Err: &budget.ExhaustedError{}}))
	assert.False(t, sent(&client.NotSentError{Err: errors.New("dial")}))
	assert.True(t, sent(bankErr(500, "", nil, nil)))
	assert.True(t, sent(nil))
}

func TestOutcomeAndWantNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "done", Done.String())
	assert.Equal(t, "refused", Refused.String())
	assert.Equal(t, "Outcome(0)", Outcome(0).String())
	assert.Equal(t, "Outcome(9)", Outcome(9).String())
	assert.Equal(t, "both", Want(0).String())
	assert.Equal(t, "balances", Balances.String())
	assert.Equal(t, "Want(8)", Want(8).String())
	assert.Zero(t, Progress{}.Count(Outcome(200)))
}
