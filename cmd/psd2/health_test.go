package main

import (
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// psd2 health reads the breaker and the downtime records a client left in
// the shared store; psd2 health report prints the period's record in the
// EBA's terms with its evidence.
func TestHealthAndReport(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st), client.WithClock(clock),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	require.NoError(t, err)
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/", Count: 5})
	get := client.Operation{Method: "GET", Path: "/v1/accounts"}
	start := clock()
	for range 5 {
		_, _ = c.Do(ctx, get, nil)
	}
	_, err = c.Do(ctx, get, nil)
	require.ErrorIs(t, err, client.ErrBankUnavailable)

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	out, errOut, code := psd2(t, append([]string{"health", "--json"}, args...)...)
	require.Equal(t, exitFailed, code, errOut) // unavailable: a finding
	var h healthStatus
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	assert.Equal(t, client.BreakerOpen, h.Breaker)
	text, _, _ := psd2(t, append([]string{"health"}, args...)...)
	assert.Contains(t, text, "UNAVAILABLE")

	now.Add(int64(10 * time.Second))
	_, _ = c.Do(ctx, get, nil) // the probe: answered, the breaker closes
	end := clock()
	out, errOut, code = psd2(t, append([]string{"health", "--json"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	assert.Equal(t, client.BreakerClosed, h.Breaker)
	assert.Equal(t, 1, h.LastDay.Count)

	from, to := start.Add(-time.Hour).UTC().Format(time.RFC3339), start.Add(time.Hour).UTC().Format(time.RFC3339)
	out, errOut, code = psd2(t, append([]string{"health", "report", "-from", from, "-to", to, "--json"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var a client.Availability
	require.NoError(t, json.Unmarshal([]byte(out), &a))
	assert.Equal(t, 1, a.Count)
	assert.Equal(t, end.Sub(start), a.Unavailable)
	require.Len(t, a.Downtimes, 1)
	require.Len(t, a.Downtimes[0].Evidence, 5)
	assert.Equal(t, 503, a.Downtimes[0].Evidence[0].Status)
	assert.NotEmpty(t, a.Downtimes[0].Evidence[0].RequestID)
	text, _, _ = psd2(t, append([]string{"health", "report", "-from", from, "-to", to}, args...)...)
	assert.Contains(t, text, "unavailable: 1 time(s)")

	_, _, code = psd2(t, append([]string{"health", "report"}, args...)...)
	assert.Equal(t, exitUsage, code, "no -from")
}

// psd2 health pointed at a store that holds nothing of the bank for this
// TPP (another bank's records, a mistyped -url or -bank, another TPP's
// certificate) says so and fails; it never reports the bank available
// with 100% uptime from records it does not have.
func TestHealthStoreOfNothingOfTheBank(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	// The store of a service that saw another bank go down (nothing
	// listens there: connections refused).
	const otherURL = "http://127.0.0.1:1"
	other, err := client.New(otherURL, creds, client.WithStore(st),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	require.NoError(t, err)
	for range 5 {
		_, _ = other.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	require.Equal(t, client.BreakerOpen, other.BankHealth().State)

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	for _, cmd := range [][]string{{"health"}, {"health", "--json"}, {"health", "report", "-from", "2026-01-01"}} {
		out, errOut, code := psd2(t, append(cmd, args...)...)
		assert.Equal(t, exitRuntime, code, "%v: %s", cmd, out)
		assert.NotContains(t, out, "available", "%v", cmd)
		assert.NotContains(t, out, "uptime", "%v", cmd)
		assert.Contains(t, errOut, "holds nothing of bank", "%v", cmd)
	}

	// The bank it does hold: read as before.
	out, errOut, code := psd2(t, "health", "-url", otherURL, "-cert", certFile, "-key", keyFile, "-store", dir)
	require.Equal(t, exitFailed, code, errOut) // read, and found unavailable
	assert.Contains(t, out, "UNAVAILABLE")
}

// TestHealthReportDatesAreOsloDays: a bare date of health report -from
// is the start of that day in Oslo and one of -to its end, as psd2
// reconcile reads dates: not midnight UTC, which left the first one or
// two hours of the Norwegian day out of a month's report, and -to
// 2026-03-31 includes the 31st.
func TestHealthReportDatesAreOsloDays(t *testing.T) {
	for _, tt := range []struct {
		in   string
		end  bool
		want string
	}{
		{"2026-06-01", false, "2026-05-31T22:00:00Z"}, // summer time
		{"2026-12-01", false, "2026-11-30T23:00:00Z"},
		{"2026-03-31", true, "2026-03-31T22:00:00Z"}, // the 31st whole, in summer time
		{"2026-03-28", true, "2026-03-28T23:00:00Z"}, // the day before the clocks go forward
		{"2026-06-01T10:00:00Z", true, "2026-06-01T10:00:00Z"},
	} {
		got, err := parseWhen(tt.in, tt.end)
		if err != nil {
			t.Fatal(err)
		}
		if got.UTC().Format(time.RFC3339) != tt.want {
			t.Errorf("parseWhen(%q, %v) = %s, want %s", tt.in, tt.end, got.UTC().Format(time.RFC3339), tt.want)
		}
	}
}
