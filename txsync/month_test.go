package txsync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/syncscript"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestMonth plays the scripted month (id churn, pending entries booked
// under other ids and amounts, dropped pending entries, twins, a late
// booking, the unfiltered pending list and a re-consent) and scores the
// ledgers against the bank's list: the sync's has no duplicate, misses
// nothing and reports no false change; today's "new booked" cursor has
// duplicates.
func TestMonth(t *testing.T) {
	w, err := syncscript.Start(t.Context())
	require.NoError(t, err)
	defer w.Close()
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(w.Clock.Now))
	require.NoError(t, err)
	out, err := syncscript.Month(t.Context(), w, s, nil)
	require.NoError(t, err)
	t.Logf("sync %+v; cursor %+v; cursor carried %+v; state %d bytes", out.Sync, out.Cursor, out.CursorCarried, out.StateBytes)
	assert.Equal(t, syncscript.Score{}, out.Sync)
	assert.Positive(t, out.Cursor.Duplicates)
	assert.Positive(t, out.CursorCarried.Duplicates)
	assert.Equal(t, syncscript.Days+1, out.Rounds)
}
