package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// outcomeGate refuses every write that records the outcome "not-sent"
// while shut, as a database that fails just those writes.
type outcomeGate struct {
	store.Store
	shut    atomic.Bool
	refused atomic.Int32
}

func (g *outcomeGate) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	return g.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		b, ttl, err := fn(old, found)
		if err == nil && g.shut.Load() && bytes.Contains(b, []byte(`"outcome":"not-sent"`)) {
			g.refused.Add(1)
			return nil, 0, errors.New("test store: refused")
		}
		return b, ttl, err
	})
}

// A create reported as not sent whose outcome the store took only after
// Resolve had left the entry as needing a person (no outcome, disarmed)
// is settled by the next Resolve: nothing was created, and the entry
// leaves the doubt. On the code before, Resolve answered ResolvedNotCreated
// without recording it, and the entry stayed in doubt (listed by InDoubt)
// for ever.
func TestNotSentAfterNeedsPersonIsSettled(t *testing.T) {
	t.Parallel()
	b := newThingBank(t)
	c := b.client(t)
	st := &outcomeGate{Store: store.NewMemoryStore()}
	st.shut.Store(true)
	j, err := journal.New(st)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	hook := j.Hook(c, thing)
	stop := func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		h, err := hook(ctx, call)
		if err != nil {
			return nil, err
		}
		cancel() // stopped before it is sent
		return h, nil
	}
	id := uuid.NewString()
	_, err = c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: stop}, nil, client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrNotSent)
	require.Eventually(t, func() bool { return st.refused.Load() >= 3 }, 5*time.Second, 10*time.Millisecond)

	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	require.Empty(t, e.Outcome)
	journal.Age(j, e)
	res, err := j.Resolve(t.Context(), c, e)
	require.NoError(t, err)
	require.Equal(t, journal.NeedsPerson, res.Kind, "disarmed: never sent")

	st.shut.Store(false) // the outcome lands
	fctx, fcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer fcancel()
	require.NoError(t, j.Flush(fctx))
	e, err = j.Entry(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, journal.OutcomeNotSent, e.Outcome)

	res, err = j.Resolve(t.Context(), c, e)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedNotCreated, res.Kind)
	e, err = j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.False(t, e.InDoubt(), "settled: nothing was created")
	for e, err := range j.InDoubt(t.Context()) {
		require.NoError(t, err)
		assert.NotEqual(t, id, e.RequestID, "no longer listed in doubt")
	}
	assert.EqualValues(t, 0, b.posts.Load())
}
