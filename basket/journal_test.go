package basket_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A journaled basket creation leaves an entry with its outcome: the
// basket's creation is resolvable after a crash like a payment's.
func TestCreateJournaled(t *testing.T) {
	t.Parallel()
	b := startBank(t)
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)
	bsk, err := basket.New(b.c, basket.WithJournal(j))
	require.NoError(t, err)
	ids := b.ndcts(t, 2, 10)

	got, err := bsk.Create(t.Context(), ids, b.basketOpts()...)
	require.NoError(t, err)

	var entries []journal.Entry
	for e, err := range j.Entries(t.Context()) {
		require.NoError(t, err)
		entries = append(entries, e)
	}
	require.Len(t, entries, 1, "one entry: the basket's creation")
	e := entries[0]
	assert.Equal(t, "basketId", e.Create.ResultID)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome)
	assert.Equal(t, got.BasketID, e.ID, "the created basket's id")
	assert.False(t, e.InDoubt())

	_, err = basket.New(b.c, basket.WithJournal(nil))
	assert.Error(t, err)
}
