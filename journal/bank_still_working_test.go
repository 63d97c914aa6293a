package journal_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// A create whose outcome is unknown (the client gave up, or lost the
// answer) may still be under way at the bank: a gateway's 504 or a
// timeout leave the bank working on it. A resend right then could reach
// the bank before the first is recorded there, past its duplicate
// check. Resolve sends nothing until the entry is older than the
// in-flight time and its own bound; then it resends as before. An
// operator who vouches for it (WithWritersStopped) resolves at once.
func TestResolveWaitsWhileTheBankMayStillWork(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)

	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(ctx, c, j, id, `{"slow":1}`), client.ErrOutcomeUnknown)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	require.Equal(t, journal.OutcomeUnknown, e.Outcome)
	posts := b.posts.Load()

	_, err = j.Resolve(ctx, c, e)
	require.ErrorIs(t, err, journal.ErrInFlight)
	assert.Equal(t, posts, b.posts.Load(), "nothing sent while the bank may still work on the create")
	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	assert.True(t, e.InDoubt(), "still in doubt")
	assert.Nil(t, e.Resolution)

	stopped, err := journal.New(st, journal.WithWritersStopped())
	require.NoError(t, err)
	e2, err := stopped.Entry(ctx, inDoubtUnaged(t, b, c, j).RequestID)
	require.NoError(t, err)
	res, err := stopped.Resolve(ctx, c, e2)
	require.NoError(t, err, "an operator's WithWritersStopped resolves at once")
	assert.Equal(t, journal.ResolvedCreated, res.Kind)

	journal.Age(j, e)
	posts = b.posts.Load()
	res, err = j.Resolve(ctx, c, e)
	require.NoError(t, err)
	assert.Equal(t, posts+1, b.posts.Load(), "one resend once the time has passed")
	assert.Equal(t, journal.ResolvedCreated, res.Kind)
}

// inDoubtUnaged is inDoubt without moving the journal's clock.
func inDoubtUnaged(t *testing.T, b *thingBank, c *client.Client, j *journal.Journal) journal.Entry {
	t.Helper()
	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(t.Context(), c, j, id, `{"other":1}`), client.ErrOutcomeUnknown)
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	return e
}
