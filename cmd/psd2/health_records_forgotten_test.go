package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// psd2 health records lists the records psd2 health forget removed too,
// each marked forgotten with who forgot it, why and when, apart from the
// live records (in text below them under a heading of their own, in
// --json under "forgotten", never among "records"), so that no one takes
// one for a live outage; the exit status is the live records'. On the
// code before, a forgotten record was in no listing: psd2 health records
// showed no trace of it.
func TestHealthRecordsListsForgottenApart(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	goodID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-30 * time.Hour), End: now.Add(-30*time.Hour + 2*time.Minute), Failures: 5})
	start := now.Add(-20 * time.Hour)
	backID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 3})
	_, errOut, code := psd2(t, append([]string{"health", "forget", backID, "-by", "ops-1", "-reason", "filed with the bank"}, args...)...)
	require.Equal(t, exitOK, code, errOut)

	out, errOut, code := psd2(t, append([]string{"health", "records"}, args...)...)
	t.Logf("records: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	live, forgotten, ok := strings.Cut(out, "FORGOTTEN")
	require.True(t, ok, "a section of forgotten records: %s", out)
	assert.Contains(t, live, goodID)
	assert.NotContains(t, live, backID, "a forgotten record is not among the live ones")
	assert.Contains(t, live, "1 downtime record(s)")
	assert.Contains(t, forgotten, backID)
	assert.Contains(t, forgotten, "forgotten")
	assert.Contains(t, forgotten, "ops-1")
	assert.Contains(t, forgotten, "filed with the bank")
	assert.Contains(t, forgotten, now.Format("2006-01-02"), "when it was forgotten")
	assert.Contains(t, forgotten, "not live")

	out, errOut, code = psd2(t, append([]string{"health", "records", "--json"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var l struct {
		Records   []recordRow `json:"records"`
		Blocking  int         `json:"blocking"`
		Forgotten []struct {
			ID     string     `json:"id"`
			Start  *time.Time `json:"start"`
			Flags  []string   `json:"flags"`
			By     string     `json:"by"`
			Reason string     `json:"reason"`
			At     time.Time  `json:"at"`
		} `json:"forgotten"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &l))
	require.Len(t, l.Records, 1)
	assert.Equal(t, goodID, l.Records[0].ID)
	assert.Equal(t, 0, l.Blocking)
	require.Len(t, l.Forgotten, 1)
	f := l.Forgotten[0]
	assert.Equal(t, backID, f.ID)
	assert.Contains(t, f.Flags, "forgotten")
	assert.Contains(t, f.Flags, "backwards")
	assert.Equal(t, "ops-1", f.By)
	assert.Equal(t, "filed with the bank", f.Reason)
	assert.WithinDuration(t, time.Now(), f.At, time.Minute)
	require.NotNil(t, f.Start)
	assert.True(t, f.Start.Equal(start))

	// Only forgotten records: no live one, the store still the bank's.
	c2, st2, _, args2 := recordsSetup(t)
	onlyID := putRecord(t, st2, c2, client.Downtime{Bank: c2.Bank(), Start: start, End: start.Add(-time.Minute), Failures: 1})
	_, errOut, code = psd2(t, append([]string{"health", "forget", onlyID, "-by", "ops-2", "-reason", "filed"}, args2...)...)
	require.Equal(t, exitOK, code, errOut)
	out, errOut, code = psd2(t, append([]string{"health", "records"}, args2...)...)
	t.Logf("records: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 downtime record(s)")
	assert.Contains(t, out, onlyID)
	assert.Contains(t, out, "ops-2")
	assert.NotContains(t, errOut, "holds no downtime record", "the trace is the bank's")
}

// A trace of a forgotten record that psd2 cannot read is said to be so,
// exit 3, never a listing with no forgotten record; the live records are
// listed all the same (they are what psd2 health forget takes).
func TestHealthRecordsUnreadableTrace(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	goodID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-3 * time.Hour), End: now.Add(-2 * time.Hour), Failures: 5})
	require.NoError(t, st.Put(t.Context(), "client/downtime-forgotten/"+c.Scope()+"/00000000000000000001/00000000000000000002", []byte(`{`), client.DowntimeKept))

	out, errOut, code := psd2(t, append([]string{"health", "records"}, args...)...)
	t.Logf("records: exit %d\n%s%s", code, out, errOut)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, out, goodID)
	assert.Contains(t, out, "could not be read")
	assert.Contains(t, errOut, "could not be read")

	out, errOut, code = psd2(t, append([]string{"health", "records", "--json"}, args...)...)
	assert.Equal(t, exitRuntime, code)
	var l struct {
		Records         []recordRow `json:"records"`
		ForgottenUnread string      `json:"forgottenUnread"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &l))
	require.Len(t, l.Records, 1)
	assert.NotEmpty(t, l.ForgottenUnread)
	assert.Contains(t, errOut, "could not be read")
}
