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

// A downtime record never ended (its process crashed) that a later
// record follows is counted to that record's start, days later maybe:
// psd2 health report prints the period (the evidence) saying so, and
// exits 3, never filing the assumed days as a fact. On the code before,
// it read as an outage seen for those days, exit 0.
func TestHealthReportAssumedEndIsNoFact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	crashed := time.Now().Add(-3 * 24 * time.Hour).UTC().Truncate(time.Second)
	next := crashed.Add(2 * 24 * time.Hour)
	for _, d := range []client.Downtime{
		{Bank: c.Bank(), Start: crashed, LastFailure: crashed, Failures: 5},
		{Bank: c.Bank(), Start: next, End: next.Add(time.Minute), LastFailure: next, Failures: 5},
	} {
		raw, err := json.Marshal(d)
		require.NoError(t, err)
		require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", d.Start.UnixNano()), raw, client.DowntimeKept))
	}

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	from := crashed.Add(-time.Hour).Format(time.RFC3339)
	out, errOut, code := psd2(t, append([]string{"health", "report", "-from", from}, args...)...)
	assert.Equal(t, exitRuntime, code, "%s%s", out, errOut)
	assert.Contains(t, out, "never seen to end")
	assert.Contains(t, out, "at most")
	assert.Contains(t, errOut, "never recorded as ended")
	out, errOut, code = psd2(t, append([]string{"health", "report", "--json", "-from", from}, args...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	var a client.Availability
	require.NoError(t, json.Unmarshal([]byte(out), &a), out)
	assert.Equal(t, 1, a.EndsAssumed)
}
