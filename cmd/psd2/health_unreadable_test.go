package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A downtime record the store holds but psd2 cannot decode is an
// outage of unknown times: psd2 health and health report name it
// unreadable and exit 3, never skip it and print the period without it.
func TestHealthUnreadableRecordIsNoAllClear(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	start := time.Now().Add(-2 * time.Hour)
	for i, raw := range []string{`{"bank":"x","start":"not a time"}`, `null`} {
		key := "client/downtime/" + c.Scope() + "/" + fmt.Sprintf("%020d", start.Add(time.Duration(i)*time.Minute).UnixNano())
		require.NoError(t, st.Put(ctx, key, []byte(raw), client.DowntimeKept))
	}

	args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
	from := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for _, cmd := range [][]string{{"health"}, {"health", "report", "-from", from}, {"health", "report", "--json", "-from", from}} {
		out, errOut, code := psd2(t, append(cmd, args...)...)
		assert.Equal(t, exitRuntime, code, "%v: %s%s", cmd, out, errOut)
		assert.NotContains(t, out, "uptime", cmd)
		assert.Contains(t, errOut, "unreadable", cmd)
	}
}
