package events_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// TestInDoubtPublishesALostEntry: a payment in doubt whose journal entry
// is lost, only its open marker left, is published as PaymentInDoubt
// (its operation unknown), never passed over.
func TestInDoubtPublishesALostEntry(t *testing.T) {
	st := store.NewMemoryStore()
	require.NoError(t, st.Put(t.Context(), "journal/open/lost-1", []byte(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)), 0))
	j, err := journal.New(st)
	require.NoError(t, err)
	col := &collector{}
	em, err := events.NewEmitter(col.handler())
	require.NoError(t, err)
	n, err := em.InDoubt(t.Context(), j)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.Len(t, col.evs, 1)
	assert.Equal(t, events.PaymentInDoubt{Payment: "lost-1"}, col.evs[0])
}

// Entries the journal cannot read are published as payments in doubt
// (their Operation unknown), and so is every entry after them; InDoubt
// returns the count with the error. It stopped at the first, with
// nothing published.
func TestInDoubtPublishesAnUnreadableEntry(t *testing.T) {
	st := store.NewMemoryStore()
	marked := []byte(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano))
	for _, id := range []string{"dmg-1", "dmg-2"} {
		require.NoError(t, st.Put(t.Context(), "journal/open/"+id, marked, 0))
		require.NoError(t, st.Put(t.Context(), "journal/entry/"+id, []byte(`{"intent":`), 0))
	}
	require.NoError(t, st.Put(t.Context(), "journal/open/lost-1", marked, 0))
	j, err := journal.New(st)
	require.NoError(t, err)
	col := &collector{}
	em, err := events.NewEmitter(col.handler())
	require.NoError(t, err)
	n, err := em.InDoubt(t.Context(), j)
	require.ErrorIs(t, err, journal.ErrEntryUnreadable)
	assert.Equal(t, 3, n)
	assert.Equal(t, []events.Event{events.PaymentInDoubt{Payment: "dmg-1"}, events.PaymentInDoubt{Payment: "dmg-2"}, events.PaymentInDoubt{Payment: "lost-1"}}, col.evs)
}
