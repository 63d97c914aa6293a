package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A downtime record that ends before it starts (the wall clock of the
// process that wrote it stepped back between the failure and the
// answer, or the store changed it) says the bank was down, but not for
// how long: psd2 health and health report must not read it as no
// unavailability. On the code before, the record was listed and summed
// to nothing: "unavailable: 0 time(s) ... uptime 100.000%", exit 0.
func TestHealthRecordEndingBeforeItStartsIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	start := time.Now().Add(-2 * time.Hour).UTC()
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 5,
		Evidence: []client.Evidence{{RequestID: "r1", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}}}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", start.UnixNano()), raw, client.DowntimeKept))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	from := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for _, cmd := range [][]string{{"health"}, {"health", "report", "-from", from}, {"health", "--json"}, {"health", "report", "--json", "-from", from}} {
		out, errOut, code := psd2(t, append(cmd, args...)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", cmd, code, out, errOut)
		assert.Equal(t, exitRuntime, code, "%v: a record psd2 cannot sum is no all-clear", cmd)
		assert.NotContains(t, out, "100.000%", cmd)
		assert.NotContains(t, out, "0 time(s)", cmd)
		assert.NotContains(t, out, `"uptimePercent"`, cmd)
		assert.Contains(t, errOut, "ends before it starts", cmd)
		assert.Contains(t, errOut, start.Format(time.RFC3339), "%v: names the record", cmd)
	}
}

// A record that ends before it starts, both before -from (the process
// that wrote its end had a clock behind), may have run into the
// period: psd2 health report gives no figure of the period without it.
// On the code before, client.Downtimes left it out, and the report read
// "unavailable: 0 time(s) ... uptime 100.000%", exit 0.
func TestHealthReportBackwardsRecordBeforeFromIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	from := time.Now().Add(-24 * time.Hour).UTC().Truncate(time.Second)
	start := from.Add(-time.Minute)
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 5,
		Evidence: []client.Evidence{{RequestID: "r1", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}}}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", start.UnixNano()), raw, client.DowntimeKept))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	for _, cmd := range [][]string{{"health", "report", "-from", from.Format(time.RFC3339)}, {"health", "report", "--json", "-from", from.Format(time.RFC3339)}} {
		out, errOut, code := psd2(t, append(cmd, args...)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", cmd, code, out, errOut)
		assert.Equal(t, exitRuntime, code, "%v: a record psd2 cannot sum is no all-clear", cmd)
		assert.NotContains(t, out, "100.000%", cmd)
		assert.NotContains(t, out, `"uptimePercent"`, cmd)
		assert.Contains(t, errOut, "ends before it starts", cmd)
		assert.Contains(t, errOut, start.Format(time.RFC3339), "%v: names the record", cmd)
	}
}

// A record that ends before it starts, both times days ago, the latest
// record, is taken by client.Downtimes as running on, in every later
// period: psd2 health, which tells the bank's state now, prints the
// state and the last day's figures as bounds, naming the record, and
// exits by the state; psd2 health report of a period it may reach into
// still gives no figure. On the code before, every psd2 health exited 3
// until another record was written.
func TestHealthOldBackwardsRecordDoesNotBlockTheState(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	start := time.Now().Add(-72 * time.Hour).UTC().Truncate(time.Second)
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 5,
		Evidence: []client.Evidence{{RequestID: "r1", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}}}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", start.UnixNano()), raw, client.DowntimeKept))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	out, errOut, code := psd2(t, append([]string{"health"}, args...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, 0, code, "the breaker is closed: the bank is available")
	assert.Contains(t, out, "available (circuit breaker closed)")
	assert.Contains(t, out, "ends before it starts")
	assert.Contains(t, out, start.Format(time.RFC3339), "names the record")
	assert.Contains(t, out, "uptime at most", "the figures are bounds, never the last day's")

	out, errOut, code = psd2(t, append([]string{"health", "--json"}, args...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `"backwards": 1`)

	from := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	out, errOut, code = psd2(t, append([]string{"health", "report", "-from", from}, args...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitRuntime, code, "a period it may reach into gets no figure")
	assert.Contains(t, errOut, "ends before it starts")
}
