package client

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record keeps at most 32 pieces of evidence. One of an earlier
// version, without LastFailure, that counted more failures than it kept
// evidence of proves the bank failing up to its last evidence at least:
// the report says its time seen failing is a lower bound, in its text
// and its JSON. On the code before, Seen was given as the figure.
func TestReportSeenOfAnOldRecordIsALowerBound(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	start := from.Add(time.Hour)
	ev := make([]Evidence, maxEvidence)
	for i := range ev {
		ev[i] = Evidence{RequestID: fmt.Sprint("r", i), At: start.Add(time.Duration(i) * time.Second), Status: 503, Result: "503 Service Unavailable"}
	}
	old := Downtime{Bank: "b", Start: start, End: start.Add(2 * time.Hour), Failures: 200, Evidence: ev}
	a := Report("b", []Downtime{old}, from, from.Add(24*time.Hour), from.Add(24*time.Hour))
	assert.Equal(t, 31*time.Second, a.Seen, "what the evidence proves")
	assert.True(t, old.SeenAtLeast())
	assert.True(t, a.SeenAtLeast)
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"seenAtLeast":true`)
	text := a.String()
	assert.Contains(t, text, "(at least 0.5 seen failing)")
	assert.Contains(t, text, "lower bound")
	assert.Contains(t, text, "the last at or after "+ev[31].At.UTC().Format(time.RFC3339))

	// All its failures in its evidence: the figure.
	whole := old
	whole.Failures = maxEvidence
	a = Report("b", []Downtime{whole}, from, from.Add(24*time.Hour), from.Add(24*time.Hour))
	assert.False(t, a.SeenAtLeast)
	assert.NotContains(t, a.String(), "at least")

	// A record with its last failure: the figure, the most it proves.
	withLast := old
	withLast.LastFailure = start.Add(90 * time.Minute)
	a = Report("b", []Downtime{withLast}, from, from.Add(24*time.Hour), from.Add(24*time.Hour))
	assert.False(t, a.SeenAtLeast)
	assert.Equal(t, 90*time.Minute, a.Seen)

	// The lower bound of a record that ended before the period tells
	// nothing of it.
	a = Report("b", []Downtime{old}, start.Add(3*time.Hour), start.Add(4*time.Hour), start.Add(4*time.Hour))
	assert.False(t, a.SeenAtLeast)
}
