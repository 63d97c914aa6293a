package journal_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// A journaled create that reached the bank, whose caller's context then
// ended with a sibling's *client.NotSentError as its cause (what
// errgroup.WithContext does when another call of the group was refused
// before it was sent), stays in doubt: Resolve must not report it not
// created (docs/design.md section 8). Before the fix the client's error
// matched client.ErrNotSent as well as client.ErrOutcomeUnknown, the hook
// was told the create was not sent, the entry was recorded
// OutcomeNotSent, and Resolve answered ResolvedNotCreated for a resource
// the bank had created.
func TestCreateCancelledWithNotSentCauseStaysInDoubt(t *testing.T) {
	t.Parallel()
	b := newThingBank(t)
	c := b.client(t)
	j, _ := newJournal(t)
	_, sibling := c.Do(t.Context(), client.Operation{Method: http.MethodPost, Path: "/v1/things", Refuse: context.Canceled}, nil)
	require.ErrorIs(t, sibling, client.ErrNotSent)

	arrived, release := b.holdNext()
	defer release()
	ctx, cancel := context.WithCancelCause(t.Context())
	go func() {
		<-arrived
		// The bank holds the create (it will act on it) until the call
		// has ended: released before, its 201 could win the race with
		// the cancellation, and the call succeed.
		cancel(sibling)
	}()
	id := uuid.NewString()
	err := create(ctx, c, j, id, `{"n":"cause"}`)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, client.ErrNotSent)
	assert.EqualValues(t, 1, b.posts.Load())

	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.NotEqual(t, journal.OutcomeNotSent, e.Outcome)
	assert.True(t, e.InDoubt(), "outcome %q", e.Outcome)
}
