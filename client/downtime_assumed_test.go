package client

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A record never ended (its process crashed, and no answer ended it)
// that another record follows ends, in Downtimes, at that record's
// start: days later, maybe, while the bank came back within minutes. The
// record and the report say that end is assumed, and the figures upper
// bounds, rather than file days of outage as seen. On the code before,
// the record read as ended then, like any other.
func TestDowntimeEndAssumedIsSaidSo(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(7 * 24 * time.Hour)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	crashed := from.Add(time.Hour)
	next := crashed.Add(3 * 24 * time.Hour)
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: crashed, LastFailure: crashed, Failures: 5})
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: next, End: next.Add(time.Minute), LastFailure: next, Failures: 5})

	downs, err := c.Downtimes(t.Context(), from, to)
	require.NoError(t, err)
	require.Len(t, downs, 2)
	assert.True(t, downs[0].End.Equal(next))
	assert.True(t, downs[0].EndAssumed)
	assert.False(t, downs[1].EndAssumed)

	a := Report(c.Bank(), downs, from, to, to)
	assert.Equal(t, 1, a.EndsAssumed)
	raw, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"endsAssumed":1`)
	assert.Contains(t, string(raw), `"endAssumed":true`)
	text := a.String()
	assert.Contains(t, text, "unavailable: at least 1 time(s), at most 4321.0 minutes")
	assert.Contains(t, text, "uptime at least ")
	assert.Contains(t, text, "never seen to end")

	// A period after the assumed end does not get it.
	a = Report(c.Bank(), downs[1:], next, to, to)
	assert.Zero(t, a.EndsAssumed)
}
