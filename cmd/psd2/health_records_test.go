package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// recordsSetup makes a file store with a client of the emulator's bank
// on it, and returns the args psd2 health takes for them.
func recordsSetup(t *testing.T) (*client.Client, store.Store, string, []string) {
	t.Helper()
	s, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithStore(st))
	require.NoError(t, err)
	return c, st, dir, []string{"-url", s.URL, "-cert", certFile, "-key", keyFile, "-store", dir}
}

// putRecord stores d as the breaker writes it and returns its ID.
func putRecord(t *testing.T, st store.Store, c *client.Client, d client.Downtime) string {
	t.Helper()
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	id := fmt.Sprintf("%020d", d.Start.UnixNano())
	require.NoError(t, st.Put(t.Context(), "client/downtime/"+c.Scope()+"/"+id, raw, client.DowntimeKept))
	return id
}

// records runs psd2 health records --json and decodes it.
func records(t *testing.T, args []string) recordsList {
	t.Helper()
	out, errOut, code := psd2(t, append([]string{"health", "records", "--json"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var l recordsList
	require.NoError(t, json.Unmarshal([]byte(out), &l))
	return l
}

// The latest record ends before it starts (a replica's clock ran
// backwards): psd2 health report of any later period refuses, for good.
// psd2 health records names it by ID with the flag backwards, psd2 health
// forget ID removes it and says what it removed, and the report then
// gives its figures. Before, psd2 had no command to list or remove a
// record: the report refused until another outage was recorded.
func TestHealthForgetBackwardsRecordEndsTheRefusal(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	good := client.Downtime{Bank: c.Bank(), Start: now.Add(-30 * time.Hour), End: now.Add(-30*time.Hour + 2*time.Minute), LastFailure: now.Add(-30 * time.Hour), Failures: 5, EndedElsewhere: true}
	goodID := putRecord(t, st, c, good)
	start := now.Add(-20 * time.Hour)
	backID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 3,
		Evidence: []client.Evidence{{RequestID: "r1", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}}})

	from := now.Add(-10 * time.Hour).Format(time.RFC3339)
	report := append([]string{"health", "report", "-from", from}, args...)
	_, errOut, code := psd2(t, report...)
	require.Equal(t, exitRuntime, code, "the latest backwards record may reach into the period")
	assert.Contains(t, errOut, "psd2 health forget "+backID+" -by WHO -reason WHY", "the refusal says the way out, with the record's ID")

	out, errOut, code := psd2(t, append([]string{"health", "records"}, args...)...)
	t.Logf("records: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, backID+"  "+start.Format(time.RFC3339))
	assert.Contains(t, out, "backwards")
	assert.Contains(t, out, "ended-elsewhere")
	assert.Contains(t, out, "2 downtime record(s)")
	assert.Contains(t, out, "psd2 health forget ID")
	l := records(t, args)
	require.Len(t, l.Records, 2)
	assert.Equal(t, goodID, l.Records[0].ID)
	assert.Equal(t, []string{"ended-elsewhere"}, l.Records[0].Flags)
	assert.Equal(t, backID, l.Records[1].ID)
	assert.Equal(t, []string{"backwards"}, l.Records[1].Flags)
	assert.Equal(t, 1, l.Blocking)

	out, errOut, code = psd2(t, append([]string{"health", "forget", backID, "-by", "ops-1", "-reason", "filed with the bank"}, args...)...)
	t.Logf("forget: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "forgot the downtime record "+backID)
	assert.Contains(t, out, "ended before it started")
	assert.Contains(t, out, "by ops-1: filed with the bank")
	assert.Contains(t, out, "in no figure now")

	l = records(t, args)
	require.Len(t, l.Records, 1, "only the record named went")
	assert.Equal(t, goodID, l.Records[0].ID)
	assert.Equal(t, 0, l.Blocking)

	out, errOut, code = psd2(t, report...)
	t.Logf("report: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "unavailable: 0 time(s)")
	assert.Contains(t, out, "the downtime record "+backID, "the report says a forgotten record may have reached into it")
	assert.Contains(t, out, "is not in the figures")
	assert.Contains(t, out, `by ops-1 ("filed with the bank")`)
	out, errOut, code = psd2(t, append([]string{"health", "report", "--json", "-from", from}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep healthReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Forgotten, 1)
	assert.Equal(t, backID, rep.Forgotten[0].ID)
	out, errOut, code = psd2(t, append([]string{"health"}, args...)...)
	t.Logf("health: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "available (circuit breaker closed)")
	assert.Contains(t, out, "the downtime record "+backID, "psd2 health says it of the last day too")

	out, errOut, code = psd2(t, append([]string{"health", "forget", backID, "-by", "ops-1", "-reason", "filed with the bank"}, args...)...)
	assert.Equal(t, exitRuntime, code, "forgotten already: %s", out)
	assert.Contains(t, errOut, "no downtime record")
}

// psd2 health forget of an ID that names no record, of a record reports
// count, or without one ID, exits non-zero and changes nothing.
func TestHealthForgetRefusesAndChangesNothing(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	goodID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-3 * time.Hour), End: now.Add(-2 * time.Hour), Failures: 5})
	openID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-time.Hour), Failures: 5})
	backID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-30 * time.Minute), End: now.Add(-31 * time.Minute), Failures: 1})
	before := records(t, args)
	require.Len(t, before.Records, 3)
	assert.Equal(t, []string{"end-assumed"}, before.Records[1].Flags)

	for _, tt := range []struct {
		ids  []string
		code int
		says string
	}{
		{[]string{"00000000000000000001"}, exitRuntime, "no downtime record"},
		{[]string{"../../x"}, exitRuntime, "no downtime record"},
		{[]string{goodID}, exitRuntime, "reports count it"},
		{[]string{openID}, exitRuntime, "reports count it"},
		{nil, exitUsage, "one record ID"},
		{[]string{backID, goodID}, exitUsage, "one record ID"},
	} {
		out, errOut, code := psd2(t, append(append([]string{"health", "forget", "-by", "ops-1", "-reason", "filed"}, tt.ids...), args...)...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.ids, out)
		assert.Contains(t, errOut, tt.says, "%v", tt.ids)
		assert.NotContains(t, out, "forgot", "%v", tt.ids)
		assert.Equal(t, before, records(t, args), "%v: nothing changed", tt.ids)
	}
	for _, cmd := range [][]string{{"records", "-from", "2026-01-01"}, {"forget", backID}, {"forget", backID, "-by", "ops-1"}, {"records", "-by", "ops-1"}} {
		_, errOut, code := psd2(t, append(append([]string{"health"}, cmd...), args...)...)
		assert.Equal(t, exitUsage, code, "%v: %s", cmd, errOut)
		assert.Equal(t, before, records(t, args), "%v: nothing changed", cmd)
	}
}

// A record another replica writes between the listing and the forget is
// kept: the forget removes the record named and nothing else. (That a
// replica writing at the same moment loses nothing is
// client.TestForgetDowntimeKeepsWhatReplicasWrite.)
func TestHealthForgetKeepsARecordWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	now := time.Now().UTC().Truncate(time.Second)
	backID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-3 * time.Hour), End: now.Add(-4 * time.Hour), Failures: 1})
	require.Len(t, records(t, args).Records, 1)
	newID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: now.Add(-time.Minute), Failures: 2})

	_, errOut, code := psd2(t, append([]string{"health", "forget", "--json", backID, "-by", "ops-1", "-reason", "filed"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	l := records(t, args)
	require.Len(t, l.Records, 1)
	assert.Equal(t, newID, l.Records[0].ID)
	assert.Equal(t, []string{"ongoing"}, l.Records[0].Flags)
}

// An unreadable record, which psd2 health and health report refuse, is
// listed by its ID as unreadable (exit 3: its times are unknown) and can
// be forgotten; a store that holds nothing of the bank (another bank's
// record only) is an error, as is one psd2 cannot read, never "0
// records".
func TestHealthRecordsUnreadableAndNone(t *testing.T) {
	t.Parallel()
	c, st, dir, args := recordsSetup(t)
	require.NoError(t, st.Put(t.Context(), "client/downtime/another-scope/00000000000000000001", []byte(`{}`), client.DowntimeKept))

	out, errOut, code := psd2(t, append([]string{"health", "records"}, args...)...)
	require.Equal(t, exitRuntime, code, errOut)
	assert.NotContains(t, out, "0 downtime record(s)")
	assert.Contains(t, errOut, "holds nothing of bank")

	id := fmt.Sprintf("%020d", time.Now().Add(-time.Hour).UnixNano())
	require.NoError(t, st.Put(t.Context(), "client/downtime/"+c.Scope()+"/"+id, []byte(`{"start":`), client.DowntimeKept))
	out, errOut, code = psd2(t, append([]string{"health", "records"}, args...)...)
	t.Logf("records: exit %d\n%s%s", code, out, errOut)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, out, id)
	assert.Contains(t, out, "unreadable")
	assert.Contains(t, errOut, "unreadable")

	out, errOut, code = psd2(t, append([]string{"health", "forget", id, "--json", "-by", "ops-1", "-reason", "filed"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	var res forgetResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, id, res.Forgotten.ID)
	assert.Equal(t, []string{"unreadable"}, res.Forgotten.Flags)

	// A store psd2 cannot read: a record's file is a directory.
	key := "client/downtime/" + c.Scope() + "/" + id
	require.NoError(t, st.Put(t.Context(), key, []byte(`{}`), client.DowntimeKept))
	sum := sha256.Sum256([]byte(key))
	var file string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), hex.EncodeToString(sum[:])) {
			file = p
		}
		return err
	}))
	require.NotEmpty(t, file)
	require.NoError(t, os.Remove(file))
	require.NoError(t, os.Mkdir(file, 0o700))
	out, errOut, code = psd2(t, append([]string{"health", "records"}, args...)...)
	t.Logf("unreadable store: exit %d\n%s%s", code, out, errOut)
	assert.Equal(t, exitRuntime, code)
	assert.NotContains(t, out, "downtime record(s)")
	assert.NotContains(t, errOut, "holds no downtime record")
}

// The bank's only record ends before it starts: once it is forgotten,
// the store still holds the trace of it, and psd2 health report gives
// the period's figures naming it, rather than refuse the store as
// holding nothing of the bank.
func TestHealthForgetTheOnlyRecord(t *testing.T) {
	t.Parallel()
	c, st, _, args := recordsSetup(t)
	start := time.Now().Add(-5 * time.Hour).UTC().Truncate(time.Second)
	backID := putRecord(t, st, c, client.Downtime{Bank: c.Bank(), Start: start, End: start.Add(-time.Minute), Failures: 3})
	report := append([]string{"health", "report", "-from", start.Add(-time.Hour).Format(time.RFC3339)}, args...)
	_, errOut, code := psd2(t, report...)
	require.Equal(t, exitRuntime, code, errOut)

	_, errOut, code = psd2(t, append([]string{"health", "forget", backID, "-by", "ops-1", "-reason", "filed"}, args...)...)
	require.Equal(t, exitOK, code, errOut)
	out, errOut, code := psd2(t, report...)
	t.Logf("report: exit %d\n%s%s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "the downtime record "+backID)
	assert.NotContains(t, errOut, "holds nothing")
}
