package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// The service's breaker opened on an outage, then every process that
// held it died: the breaker's value in the store ran out, and the
// outage's downtime record was never ended (no process got an answer
// from the bank since). psd2 health must not read that as "available":
// no one knows the bank is back. On the code before it printed "bank
// ...: available (circuit breaker closed)" and exited 0 beside an
// unavailability that was still running.
func TestHealthUnendedOutageIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	require.NoError(t, err)
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/", Count: 5})
	for range 5 {
		_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	require.Equal(t, client.BreakerOpen, c.BankHealth().State)
	// The process dies; its breaker's value expires in the store.
	var breakers []string
	for k, err := range st.Keys(ctx, "client/breaker/") {
		require.NoError(t, err)
		breakers = append(breakers, k)
	}
	require.Len(t, breakers, 1)
	require.NoError(t, st.Delete(ctx, breakers[0]))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	out, errOut, code := psd2(t, append([]string{"health"}, args...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.NotEqual(t, exitOK, code, "an outage never seen to end is no all-clear")
	assert.NotContains(t, out, "available (circuit breaker closed)")
	assert.Contains(t, out+errOut, "never seen to end")

	out, _, code = psd2(t, append([]string{"health", "--json"}, args...)...)
	assert.NotEqual(t, exitOK, code)
	var h map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &h), out)
	assert.Contains(t, h, "unendedSince", "the JSON names the outage that never ended")
}

// psd2 health report on the same store: the record never ended, and no
// client holds the breaker open, so the report's "ongoing" is not known
// to be so, nor the unavailability it counts to the period's end. The
// report is printed (it is the evidence), but it exits 3 as psd2 health
// does and says so, and the JSON names the record. On the code before
// it exited 0 with the record listed as "ongoing".
func TestHealthReportUnendedOutageIsNoFact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir, st, c := storeClient(t, s, creds, client.WithRetryPolicy(client.RetryPolicy{}))
	s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/", Count: 5})
	for range 5 {
		_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	require.Equal(t, client.BreakerOpen, c.BankHealth().State)
	args := []string{"health", "report", "-from", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339),
		"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}

	// While a client holds the breaker open, the outage is ongoing.
	out, errOut, code := psd2(t, args...)
	require.Equal(t, exitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "ongoing")

	// The process dies; its breaker's value expires in the store.
	require.NoError(t, st.Delete(ctx, "client/breaker/"+c.Scope()))
	state, _, _, err := c.StoredBreaker(ctx)
	require.NoError(t, err)
	require.Equal(t, client.BreakerClosed, state)

	out, errOut, code = psd2(t, args...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitRuntime, code, "an outage never seen to end is not known to be ongoing")
	assert.Contains(t, out, "unavailable: 1 time(s)", "the report is still printed")
	assert.Contains(t, out, "never seen to end")
	assert.Contains(t, errOut, "never recorded as ended")

	out, _, code = psd2(t, append([]string{"health", "report", "--json"}, args[2:]...)...)
	assert.Equal(t, exitRuntime, code)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Contains(t, rep, "unendedSince", "the JSON names the outage that never ended")
	assert.Contains(t, rep, "uptimePercent", "the report's own fields stay where they were")
}
