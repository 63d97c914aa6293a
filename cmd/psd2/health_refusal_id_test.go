package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// The refusal of psd2 health and psd2 health report for a record that
// ends before it starts names the record by its ID, the one psd2 health
// forget takes, so that the operator can copy it; the ID here is not the
// record's start (a replica merged an earlier start into it). On the code
// before, the refusal named only the record's start and end.
func TestHealthBackwardsRefusalNamesTheRecordID(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	start := now.Add(-2 * time.Hour)
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 3}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	id := fmt.Sprintf("%020d", start.Add(time.Second).UnixNano()) // first written with a later start
	require.NoError(t, st.Put(t.Context(), "client/downtime/"+c.Scope()+"/"+id, raw, client.DowntimeKept))

	from := now.Add(-24 * time.Hour).Format(time.RFC3339)
	for _, cmd := range [][]string{{"health"}, {"health", "report", "-from", from}, {"health", "report", "--json", "-from", from}} {
		out, errOut, code := psd2(t, append(cmd, args...)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", cmd, code, out, errOut)
		assert.Equal(t, exitRuntime, code, cmd)
		assert.Contains(t, errOut, "ends before it starts", cmd)
		assert.Contains(t, errOut, "record "+id, "%v: names the record's ID", cmd)
		assert.Contains(t, errOut, "psd2 health forget "+id, "%v: the command to copy", cmd)
	}
}

// psd2 health names a record that ends before it starts, both times
// before the last 24 h (which it does not refuse), by its ID too. On the
// code before, it named only the record's start.
func TestHealthOldBackwardsRecordNamedByID(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	start := time.Now().Add(-72 * time.Hour).UTC().Truncate(time.Second)
	d := client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 3}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	id := fmt.Sprintf("%020d", start.Add(time.Second).UnixNano())
	require.NoError(t, st.Put(t.Context(), "client/downtime/"+c.Scope()+"/"+id, raw, client.DowntimeKept))

	out, errOut, code := psd2(t, append([]string{"health"}, args...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "the downtime record "+id+" (from "+start.Format(time.RFC3339)+") ends before it starts")
}
