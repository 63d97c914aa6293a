package journal_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// An entry in doubt whose entry is gone (deleted, lost with a store's
// file) while its open marker is left is never forgotten silently: the
// payment may exist. InDoubt has nothing to resolve and leaves the
// marker, however old; Lost yields it; Entry says it is lost; a person's
// settlement is recorded (Lost set) and only then is the marker removed.
func TestLostEntryIsNeverForgotten(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)
	e := inDoubt(t, b, c, j, `{"lost":1}`)
	kept := inDoubt(t, b, c, j, `{"kept":1}`)
	require.NoError(t, st.Delete(ctx, "journal/entry/"+e.RequestID))

	for range 2 {
		var yielded []string
		for en, err := range j.InDoubt(ctx) {
			require.NoError(t, err)
			yielded = append(yielded, en.RequestID)
		}
		assert.Equal(t, []string{kept.RequestID}, yielded)
	}
	assert.Contains(t, keysUnder(t, st, "journal/open/"), "journal/open/"+e.RequestID, "the only trace of a payment in doubt stays")

	var lost []journal.Lost
	for l, err := range j.Lost(ctx) {
		require.NoError(t, err)
		lost = append(lost, l)
	}
	require.Len(t, lost, 1)
	assert.Equal(t, e.RequestID, lost[0].RequestID)
	assert.WithinDuration(t, e.Created, lost[0].Marked, 0)

	_, err := j.Entry(ctx, e.RequestID)
	require.ErrorIs(t, err, journal.ErrLost)
	require.ErrorIs(t, err, store.ErrNotStored)

	settled, err := j.SettleByPerson(ctx, e.RequestID, "ops-anna", "asked the bank: no such payment")
	require.NoError(t, err)
	assert.True(t, settled.Lost)
	assert.False(t, settled.InDoubt())
	require.NotNil(t, settled.Resolution)
	assert.Equal(t, journal.SettledByPerson, settled.Resolution.Kind)
	assert.Contains(t, settled.Resolution.Reason, "ops-anna")
	assert.Contains(t, settled.String(), "lost=true")
	assert.NotContains(t, keysUnder(t, st, "journal/open/"), "journal/open/"+e.RequestID)
	for l, err := range j.Lost(ctx) {
		require.NoError(t, err)
		t.Errorf("lost after its settlement: %v", l)
	}
	again, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	assert.True(t, again.Lost)
	_, err = j.SettleByPerson(ctx, e.RequestID, "ops-anna", "twice")
	require.ErrorIs(t, err, journal.ErrNotInDoubt)
}

// A marker younger than the in-flight time without its entry is not
// lost yet: an earlier version wrote the marker before the intent.
func TestYoungMarkerWithoutEntryIsNotLostYet(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j, st := newJournal(t)
	require.NoError(t, st.Put(ctx, "payments/journal-open/young", []byte(time.Now().UTC().Format(time.RFC3339Nano)), 0))
	for l, err := range j.Lost(ctx) {
		require.NoError(t, err)
		t.Errorf("lost: %v", l)
	}
	_, err := j.Entry(ctx, "young")
	require.ErrorIs(t, err, store.ErrNotStored)
	require.NotErrorIs(t, err, journal.ErrLost)
}
