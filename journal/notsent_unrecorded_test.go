package journal_test

import (
	"context"
	"encoding/json"
	"errors"
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

// downStore fails every write of the journal while down is set, as a
// database that went away.
type downStore struct {
	store.Store
	down    atomic.Bool
	refused atomic.Int32 // writes of entries refused
}

var errDown = errors.New("test store: down")

func (d *downStore) fail(key string) error {
	if d.down.Load() && strings.HasPrefix(key, "journal/") {
		if strings.HasPrefix(key, "journal/entry/") {
			d.refused.Add(1)
		}
		return errDown
	}
	return nil
}

func (d *downStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := d.fail(key); err != nil {
		return err
	}
	return d.Store.Put(ctx, key, v, ttl)
}

func (d *downStore) Delete(ctx context.Context, key string) error {
	if err := d.fail(key); err != nil {
		return err
	}
	return d.Store.Delete(ctx, key)
}

func (d *downStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if err := d.fail(key); err != nil {
		return err
	}
	return d.Store.Update(ctx, key, fn)
}

// A create the client reported as not sent (client.ErrNotSent) is never
// sent by the SDK, even when the store failed to record that outcome: the
// journal keeps trying to record it, and Resolve sends nothing meanwhile.
// On the code before, the entry stayed armed without an outcome, and a
// Resolve once it was old enough sent the payment its caller had been
// told was never sent.
func TestNotSentUnrecordedIsNeverSent(t *testing.T) {
	t.Parallel()
	b := newThingBank(t)
	c := b.client(t)
	st := &downStore{Store: store.NewMemoryStore()}
	j, err := journal.New(st)
	require.NoError(t, err)

	// The intent and the marker are written; then the call is stopped
	// before it is sent, and the store goes down before the outcome.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	hook := j.Hook(c, thing)
	stop := func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		h, err := hook(ctx, call)
		if err != nil {
			return nil, err
		}
		cancel()
		return func(r client.Result) { st.down.Store(true); h(r) }, nil
	}
	id := uuid.NewString()
	_, err = c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: stop}, nil, client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrNotSent)
	require.EqualValues(t, 0, b.posts.Load())

	// The outcome's tries are spent (3 updates of the entry), then the
	// database is back.
	require.Eventually(t, func() bool { return st.refused.Load() >= 3 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	st.down.Store(false)
	fctx, fcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer fcancel()
	require.NoError(t, j.Flush(fctx))
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	journal.Age(j, e)
	res, err := j.Resolve(t.Context(), c, e)
	t.Logf("resolution %v, err %v", res, err)
	assert.EqualValues(t, 0, b.posts.Load(), "a create reported as not sent is never sent")
	assert.NotEqual(t, journal.ResolvedCreated, res.Kind)
}
