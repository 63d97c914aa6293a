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

// A downtime record whose start or end lies far after now (the clock of
// the process that wrote it was ahead, or the store changed it) tells an
// outage of unknown time: psd2 health and health report name it and
// give no figure (exit 3). On the code before, one that starts then was
// in no period (0 time(s), 100% uptime, exit 0), and one that ends then
// was counted to the period's end as seen.
func TestHealthRecordFarAheadIsNoFigure(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct {
		name       string
		start, end time.Time
	}{
		{"starts ahead", now.Add(10 * 24 * time.Hour), now.Add(10*24*time.Hour + time.Minute)},
		{"ends ahead", now.Add(-2 * time.Hour), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s, creds, certFile, keyFile, _ := tppFiles(t)
			dir := filepath.Join(t.TempDir(), "store")
			st, err := store.NewFileStore(dir)
			require.NoError(t, err)
			c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
			require.NoError(t, err)
			d := client.Downtime{Bank: c.Bank(), Start: tc.start, End: tc.end, LastFailure: tc.start, Failures: 5}
			raw, err := json.Marshal(d)
			require.NoError(t, err)
			require.NoError(t, st.Put(ctx, "client/downtime/"+c.Scope()+"/"+fmt.Sprintf("%020d", d.Start.UnixNano()), raw, client.DowntimeKept))

			args := []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
			from := now.Add(-24 * time.Hour).Format(time.RFC3339)
			for _, cmd := range [][]string{{"health"}, {"health", "report", "-from", from}, {"health", "report", "--json", "-from", from}} {
				out, errOut, code := psd2(t, append(cmd, args...)...)
				assert.Equal(t, exitRuntime, code, "%v: %s%s", cmd, out, errOut)
				assert.NotContains(t, out, "uptime", cmd)
				assert.Contains(t, errOut, "lies after now", cmd)
				assert.Contains(t, errOut, tc.start.Format(time.RFC3339), "%v: names the record", cmd)
			}
		})
	}
}
