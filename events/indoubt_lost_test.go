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
