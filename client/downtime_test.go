package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// failingGets is a store whose Get of a key under prefix fails: a
// slow database past its deadline, a connection cut mid-read.
type failingGets struct {
	store.Store
	prefix string
}

var errStoreDown = errors.New("store: connection reset")

func (s failingGets) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, s.prefix) {
		return nil, errStoreDown
	}
	return s.Store.Get(ctx, key)
}

// putDowntime stores d as the breaker writes it.
func putDowntime(t *testing.T, st store.Store, scope string, d Downtime) {
	t.Helper()
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, st.Put(t.Context(), downtimePrefix(scope)+fmt.Sprintf("%020d", d.Start.UnixNano()), raw, DowntimeKept))
}

// A downtime record the store holds but could not give, or gave
// unreadable, is an error of Downtimes, never a record left out: a
// report without it would show the bank available when it was not.
func TestDowntimesUnreadIsAnError(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: start, End: start.Add(time.Hour), Failures: 5})

	downs, err := c.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(2*time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)

	failing := newTestClient(t, "https://bank.example", WithStore(failingGets{Store: mem, prefix: downtimePrefix(c.Scope())}))
	_, err = failing.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(2*time.Hour))
	require.ErrorIs(t, err, errStoreDown, "a store that fails is no record")

	require.NoError(t, mem.Put(t.Context(), downtimePrefix(c.Scope())+fmt.Sprintf("%020d", start.Add(3*time.Hour).UnixNano()), []byte("{garbled"), time.Hour))
	_, err = c.Downtimes(t.Context(), start.Add(-time.Hour), start.Add(5*time.Hour))
	require.Error(t, err, "an unreadable record is no record")
}

// Replicas on one store each open their own breaker in an outage they
// all meet, and each writes its record: the report counts the time the
// bank was unavailable once, not once per replica (an hour's outage
// seen by three replicas is an hour, and the uptime never goes below 0).
func TestReportOverlappingRecords(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(2 * time.Hour)
	start := from.Add(30 * time.Minute)
	downs := []Downtime{
		{Bank: "b", Start: start, End: start.Add(time.Hour)},
		{Bank: "b", Start: start.Add(time.Second), End: start.Add(time.Hour + time.Second)},
		{Bank: "b", Start: start.Add(2 * time.Second), End: start.Add(time.Hour - time.Minute)},
		{Bank: "b", Start: start.Add(80 * time.Minute), End: start.Add(85 * time.Minute)},
	}
	a := Report("b", downs, from, to, to)
	assert.Equal(t, 2, a.Count, "two unavailabilities")
	assert.Equal(t, time.Hour+time.Second+5*time.Minute, a.Unavailable)
	assert.Equal(t, time.Hour+time.Second, a.Longest)
	assert.InDelta(t, 100*(1-(3901.0/7200)), a.Uptime, 1e-9)
	assert.Len(t, a.Downtimes, 4, "every replica's record and its evidence")
}
