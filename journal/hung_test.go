package journal_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A hung database never holds a journaled create, even on a context
// without a deadline: each write before the create is sent gives up
// after storeTimeout (shorter here). An intent given up on refuses the
// create before anything is sent (ErrNotSent); an open marker given up
// on leaves the create to be sent, unarmed, as after any failed marker
// write; a resend's claim given up on ends Resolve without sending. On
// the code before, each of them waited on the store for as long as the
// caller's context, which had no end.
func TestHungStoreHoldsNoCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background() // no deadline: only the store's bound ends a hung write

	t.Run("intent", func(t *testing.T) {
		t.Parallel()
		b := newThingBank(t)
		c := b.client(t)
		st := hungstore.New(t, []string{"Update"}, "journal/entry/")
		st.Hung.Store(false) // hung from below on
		j, err := journal.New(st)
		require.NoError(t, err)
		journal.SetStoreWait(j, 100*time.Millisecond)
		st.Hung.Store(true)
		id := uuid.NewString()
		err = hungstore.Within(t, "the intent", func() error { return create(ctx, c, j, id, `{"n":1}`) })
		require.ErrorIs(t, err, client.ErrNotSent)
		require.ErrorIs(t, err, journal.ErrJournal)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the intent was given up on")
		assert.Zero(t, b.posts.Load(), "nothing was sent")

		st.Hung.Store(false)
		_, err = j.Entry(ctx, id)
		require.ErrorIs(t, err, store.ErrNotStored, "nothing was journaled")
		require.NoError(t, create(ctx, c, j, uuid.NewString(), `{"n":1}`), "the database answers again")
		assert.EqualValues(t, 1, b.posts.Load())
	})

	t.Run("marker", func(t *testing.T) {
		t.Parallel()
		b := newThingBank(t)
		c := b.client(t)
		st := hungstore.New(t, []string{"Put"}, "journal/open/")
		st.Hung.Store(false) // hung from below on
		j, err := journal.New(st)
		require.NoError(t, err)
		journal.SetStoreWait(j, 100*time.Millisecond)
		st.Hung.Store(true)
		id := uuid.NewString()
		require.NoError(t, hungstore.Within(t, "the open marker", func() error { return create(ctx, c, j, id, `{"n":2}`) }))
		assert.EqualValues(t, 1, b.posts.Load(), "sent once, after its intent")
		e, err := j.Entry(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, journal.OutcomeCreated, e.Outcome)
	})

	t.Run("resend", func(t *testing.T) {
		t.Parallel()
		b := newThingBank(t)
		c := b.client(t)
		st := hungstore.New(t, []string{"Update"}, "journal/entry/")
		st.Hung.Store(false) // hung from below on
		j, err := journal.New(st, journal.WithWritersStopped())
		require.NoError(t, err)
		journal.SetStoreWait(j, 100*time.Millisecond)
		e := inDoubt(t, b, c, j, `{"n":3}`)
		sent := b.posts.Load()
		st.Hung.Store(true)
		err = hungstore.Within(t, "Resolve", func() error {
			_, err := j.Resolve(ctx, c, e)
			return err
		})
		require.ErrorIs(t, err, client.ErrNotSent)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the claim was given up on")
		assert.Equal(t, sent, b.posts.Load(), "nothing was sent again")

		st.Hung.Store(false)
		res, err := j.Resolve(ctx, c, e)
		require.NoError(t, err, "the database answers again")
		assert.Equal(t, journal.ResolvedCreated, res.Kind)
	})
}

// An entry stays in flight (Entry.Until) for as long as its create may
// still be on its way: the create is sent after the hook's intent and
// open marker, each of which may take the store's bound, so on a context
// without a deadline the bound covers both writes as well as the call
// itself. On the code before, Until was the call's bound from the
// intent's time alone: a store slow on those two writes moved the
// create's end past Until, where a replica may resolve it. A context
// with a deadline still bounds the entry by that deadline.
func TestInFlightCoversTheWritesBeforeTheSend(t *testing.T) {
	t.Parallel()
	b := newThingBank(t)
	c := b.client(t)
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)
	const wait = time.Hour // the store's bound, long enough to stand out
	journal.SetStoreWait(j, wait)

	id := uuid.NewString()
	require.NoError(t, create(context.Background(), c, j, id, `{"n":1}`))
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, e.Until.Sub(e.Created), c.LongestCall()+2*wait,
		"the create may be sent two store bounds after its intent, and then run the client's longest call")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dl, _ := ctx.Deadline()
	id = uuid.NewString()
	require.NoError(t, create(ctx, c, j, id, `{"n":2}`))
	e, err = j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.True(t, e.Until.Before(dl.Add(time.Minute)), "a deadline bounds the entry: %v after it", e.Until.Sub(dl))
}

// A listing of the journal (Entries, InDoubt) on a store that stopped
// answering ends with an error after the store's bound for one key, even
// on a context without a deadline; once the store answers, a listing
// runs whole. On the code before, it waited for as long as the caller's
// context, which had no end.
func TestHungStoreHoldsNoListing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := hungstore.New(t, []string{"Keys"})
	j, err := journal.New(st)
	require.NoError(t, err)
	journal.SetStoreWait(j, 200*time.Millisecond)
	for name, list := range map[string]func(context.Context) iter.Seq2[journal.Entry, error]{
		"Entries": j.Entries, "InDoubt": j.InDoubt,
	} {
		err := hungstore.Within(t, name, func() error {
			for _, err := range list(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		})
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
	}
	st.Hung.Store(false)
	for _, err := range j.Entries(ctx) {
		require.NoError(t, err)
	}
}
