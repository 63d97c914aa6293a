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

// A downtime record of an earlier version (no lastFailure) that counted
// more failures than the 32 it kept evidence of proves the bank failing
// up to its last evidence at least: psd2 health and health report say
// the time seen failing is a lower bound, in text and JSON. On the code
// before, they gave it as the figure.
func TestHealthSeenOfAnOldRecordIsALowerBound(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	start := time.Now().Add(-3 * time.Hour).UTC().Truncate(time.Second)
	ev := make([]client.Evidence, 32)
	for i := range ev {
		ev[i] = client.Evidence{RequestID: fmt.Sprint("r", i), At: start.Add(time.Duration(i) * time.Second), Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}
	}
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(time.Hour), Failures: 120, Evidence: ev}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", start.UnixNano()), raw, client.DowntimeKept))

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	from := start.Add(-time.Hour).Format(time.RFC3339)
	out, errOut, code := psd2(t, append([]string{"health", "report", "-from", from}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "(at least 0.5 seen failing)")
	assert.Contains(t, out, "lower bound")
	out, errOut, code = psd2(t, append([]string{"health", "report", "--json", "-from", from}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var a client.Availability
	require.NoError(t, json.Unmarshal([]byte(out), &a))
	assert.True(t, a.SeenAtLeast)
	out, errOut, code = psd2(t, append([]string{"health"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "(at least 0.5 seen failing)")
	assert.Contains(t, out, "lower bound")
}
