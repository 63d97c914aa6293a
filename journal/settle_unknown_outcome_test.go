package journal_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// A person asked to settle an entry whose outcome just became unknown
// may hear from the bank of no payment that it records a moment later:
// SettleByPerson waits as Resolve does (ErrInFlight), unless the
// operator vouches that the bank is done (WithWritersStopped).
func TestSettleByPersonWaitsWhileTheBankMayStillWork(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)

	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(ctx, c, j, id, `{"settle":"early"}`), client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))

	_, err := j.SettleByPerson(ctx, id, "ops-anna", "the bank has no such payment")
	require.ErrorIs(t, err, journal.ErrInFlight)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	assert.True(t, e.InDoubt())
	assert.Nil(t, e.Resolution)

	stopped, err := journal.New(st, journal.WithWritersStopped())
	require.NoError(t, err)
	_, err = stopped.SettleByPerson(ctx, id, "ops-anna", "the bank has no such payment")
	require.NoError(t, err, "an operator who vouches that the bank is done settles at once")
}
