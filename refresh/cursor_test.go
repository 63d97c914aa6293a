package refresh

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/txsync"
)

func mustDate(s string) date.Date {
	d, err := date.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// An earlier version's cursor, which also held the newest booking date
// and the ids of the booked entries it saw, decodes into the cursor that
// keeps only what the spacing needs; the cursor writes that alone.
func TestCursorKeepsOnlyRefreshedAt(t *testing.T) {
	t.Parallel()
	var c Cursor
	require.NoError(t, json.Unmarshal([]byte(`{"refreshedAt":"2025-03-10T06:00:00Z","date":"2025-03-09","from":"2025-03-04","seen":["a","b"]}`), &c))
	assert.Equal(t, Cursor{RefreshedAt: time.Date(2025, 3, 10, 6, 0, 0, 0, time.UTC)}, c)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"refreshedAt":"2025-03-10T06:00:00Z"}`, string(b))
	b, err = json.Marshal(Cursor{})
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b))
}

// The transactions query starts at the sync's first date when it has
// one; else at Since, and without a sync not before lookbackDays before
// the last refresh; never more than 89 days back.
func TestFromDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		since, refreshed, syncFrom string
		synced                     bool
		want                       string
	}{
		{want: ""},
		{since: "2025-06-01", want: "2025-06-01"},
		{refreshed: "2025-06-20", want: "2025-06-15"},                      // lookbackDays before the last refresh
		{since: "2025-06-01", refreshed: "2025-06-20", want: "2025-06-15"}, // the later of the two
		{since: "2025-06-25", refreshed: "2025-06-20", want: "2025-06-25"},
		{since: "2025-01-01", want: "2025-04-02"}, // 89 days back at most
		{synced: true, refreshed: "2025-06-20", want: ""},
		{synced: true, since: "2025-06-01", refreshed: "2025-06-20", want: "2025-06-01"},
		{synced: true, since: "2025-06-01", syncFrom: "2025-06-22", want: "2025-06-22"}, // the sync's window
		{synced: true, syncFrom: "2025-03-01", want: "2025-04-02"},
	}
	for _, tt := range tests {
		var j Job
		if tt.since != "" {
			j.Since = mustDate(tt.since)
		}
		if tt.refreshed != "" {
			j.Cursor.RefreshedAt = mustDate(tt.refreshed).Time(time.UTC).Add(6 * time.Hour)
		}
		var syncFrom date.Date
		if tt.syncFrom != "" {
			syncFrom = mustDate(tt.syncFrom)
		}
		r := &Refresher{}
		if tt.synced {
			r.sync = &txsync.Syncer{}
		}
		assert.Equal(t, tt.want, r.from(&j, syncFrom, now).String(), "%+v", tt)
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
		{"paused", &client.NotSentError{Err: &budget.PausedError{Until: time.Unix(9, 0)}}, Transient, false},
		{"corrupt sync state", fmt.Errorf("wrapped: %w", txsync.ErrCorruptState), Refused, false},
		// A later release's sync state (a rolling upgrade): this replica
		// cannot read it; retried at once it would fail again.
		{"later sync state", fmt.Errorf("wrapped: %w", txsync.ErrNewerState), Refused, false},
	}
	for _, tt := range tests {
		v := classify(tt.err)
		assert.Equal(t, tt.want, v.outcome, tt.name)
		assert.Equal(t, tt.rate, v.rateLimit, tt.name)
	}
	v := classify(bankErr(429, "TOO_MANY", retry, nil))
	assert.True(t, v.hasRetry)
	assert.Equal(t, 7*time.Second, v.retryAfter)
	v = classify(&client.NotSentError{Err: &budget.PausedError{Until: time.Unix(9, 0)}})
	require.NotNil(t, v.paused)
	assert.Equal(t, time.Unix(9, 0), v.paused.Until)
	assert.ErrorIs(t, &budget.PausedError{}, ErrPaused)
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
