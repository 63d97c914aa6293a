package client

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A record that cannot be decoded when the cap drops the oldest records
// is kept, not removed: its end, and so the time its outage covered, is
// unknown, and the time up to which records went would not cover it. The
// next readable record goes instead, and Downtimes goes on naming the
// unreadable one. On the code before, it was removed and its outage left
// out of every period after the next record's start.
func TestDropOldestKeepsAnUnreadableRecord(t *testing.T) {
	t.Parallel()
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	first := time.Now().Add(-300 * 24 * time.Hour)
	fillDowntimes(t, mem, c.Scope(), c.Bank(), first, MaxDowntimes+1)
	prefix := downtimePrefix(c.Scope())
	bad := prefix + fmt.Sprintf("%020d", first.UnixNano())
	require.NoError(t, mem.Put(t.Context(), bad, []byte(`{"start":`), DowntimeKept))

	c.bankHealth().dropOldest()

	_, err := mem.Get(t.Context(), bad)
	require.NoError(t, err, "the unreadable record is kept")
	assert.Equal(t, MaxDowntimes, countKeys(t, mem, prefix), "the next record went instead")
	_, err = mem.Get(t.Context(), prefix+fmt.Sprintf("%020d", first.Add(time.Minute).UnixNano()))
	require.ErrorIs(t, err, store.ErrNotStored, "the oldest readable record went")
	_, err = c.Downtimes(t.Context(), first.Add(time.Hour), first.Add(2*time.Hour))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable")
}
