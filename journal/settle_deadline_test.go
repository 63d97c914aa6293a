package journal_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
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

// gatedStore hangs every write under the given prefixes while gate is
// armed, until the call's context ends or the gate is lifted (then the
// write goes to the memory store).
type gatedStore struct {
	store.Store
	prefixes []string
	armed    atomic.Bool
	lifted   chan struct{}
}

func (g *gatedStore) hang(ctx context.Context, key string) error {
	if !g.armed.Load() {
		return nil
	}
	for _, p := range g.prefixes {
		if strings.HasPrefix(key, p) {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-g.lifted:
				return nil
			}
		}
	}
	return nil
}

func (g *gatedStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := g.hang(ctx, key); err != nil {
		return err
	}
	return g.Store.Put(ctx, key, v, ttl)
}

func (g *gatedStore) Delete(ctx context.Context, key string) error {
	if err := g.hang(ctx, key); err != nil {
		return err
	}
	return g.Store.Delete(ctx, key)
}

func (g *gatedStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if err := g.hang(ctx, key); err != nil {
		return err
	}
	return g.Store.Update(ctx, key, fn)
}

// A store that hangs once the create was sent never holds the caller
// past its deadline: the bank's answer (the payment's id) comes back by
// the deadline, and the outcome is recorded on a context of its own once
// the store answers again (Flush waits for it). On the code before, the
// outcome's recording ran on the caller's goroutine for up to
// outcomeTimeout (10 s) and more, whatever the caller's deadline.
func TestHungOutcomeHoldsNoCallPastItsDeadline(t *testing.T) {
	t.Parallel()
	b := newThingBank(t)
	c := b.client(t)
	st := &gatedStore{Store: store.NewMemoryStore(), prefixes: []string{"journal/"}, lifted: make(chan struct{})}
	j, err := journal.New(st)
	require.NoError(t, err)
	journal.SetStoreWait(j, 3*time.Second)

	// The intent and the marker are written; the outcome's writes hang.
	arm := func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		return func(client.Result) { st.armed.Store(true) }, nil
	}
	hook := j.Hook(c, thing)
	both := func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		a, _ := arm(ctx, call)
		h, err := hook(ctx, call)
		if err != nil {
			return nil, err
		}
		return func(r client.Result) { a(r); h(r) }, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	id := uuid.NewString()
	start := time.Now()
	var out struct {
		ThingID string `json:"thingId"`
	}
	_, err = c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: both}, &out, client.WithRequestID(id))
	took := time.Since(start)
	require.NoError(t, err, "the bank's answer")
	assert.NotEmpty(t, out.ThingID, "the created id reaches the caller")
	assert.Less(t, took, time.Second, "the caller's deadline (500 ms) bounds the call")
	assert.EqualValues(t, 1, b.posts.Load())

	close(st.lifted) // the database answers again
	fctx, fcancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer fcancel()
	require.NoError(t, j.Flush(fctx))
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome, "the outcome was recorded after the caller's return")
}
