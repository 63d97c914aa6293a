package journal_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// A create whose outcome is unknown may still be under way at the bank
// whatever a replica's clock says: one whose clock runs ahead must not
// take the entry for one the bank is done with and send it again. The
// in-flight lease, on the store's clock, keeps it waiting, as it does
// for an entry without an outcome.
func TestSkewedReplicaWaitsWhileTheBankMayStillWork(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c1 := b.client(t)
	j1, j2, c2 := replicas(t, b)

	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(ctx, c1, j1, id, `{"skew":"unknown"}`), client.ErrOutcomeUnknown)
	require.NoError(t, j1.Flush(ctx))
	posts := b.posts.Load()

	e, err := j2.Entry(ctx, id)
	require.NoError(t, err)
	require.Equal(t, journal.OutcomeUnknown, e.Outcome)
	_, err = j2.Resolve(ctx, c2, e)
	require.ErrorIs(t, err, journal.ErrInFlight)
	assert.Equal(t, posts, b.posts.Load(), "nothing sent again while the bank may still work on the create")
}
