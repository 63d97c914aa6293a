package journal_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// ttlStore remembers the ttl of the last write of each journal entry.
type ttlStore struct {
	store.Store
	mu  sync.Mutex
	ttl map[string]time.Duration
}

func (s *ttlStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	return s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		b, ttl, err := fn(old, found)
		if err == nil && strings.HasPrefix(key, "journal/entry/") {
			s.mu.Lock()
			s.ttl[key] = ttl
			s.mu.Unlock()
		}
		return b, ttl, err
	})
}

func (s *ttlStore) ttlOf(id string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ttl["journal/entry/"+id]
}

// An entry without an outcome (its process died during the create) that
// Resolve or a person settled is settled: it leaves with the retention,
// as every settled entry does (DefaultRetention: "created, refused, not
// sent, or resolved"), with the PSU data it keeps. On the code before it
// was kept for ever.
func TestResolvedEntryWithoutOutcomeLeavesWithTheRetention(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"resolve", "person"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			b := newThingBank(t)
			c := b.client(t)
			st := &ttlStore{Store: store.NewMemoryStore(), ttl: map[string]time.Duration{}}
			j, err := journal.New(st, journal.WithRetention(time.Hour))
			require.NoError(t, err)

			// The process dies during the create: no outcome is recorded,
			// and the bank never got it.
			hook := j.Hook(c, thing)
			crash := func(ctx context.Context, call *client.Call) (func(client.Result), error) {
				if _, err := hook(ctx, call); err != nil {
					return nil, err
				}
				return func(client.Result) {}, nil
			}
			b.drop.Store(1)
			id := uuid.NewString()
			_, err = c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
				Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: crash}, nil, client.WithRequestID(id))
			require.ErrorIs(t, err, client.ErrOutcomeUnknown)
			e, err := j.Entry(ctx, id)
			require.NoError(t, err)
			require.Empty(t, e.Outcome)
			journal.Age(j, e)

			if how == "resolve" {
				res, err := j.Resolve(ctx, c, e)
				require.NoError(t, err)
				require.Equal(t, journal.ResolvedCreated, res.Kind)
			} else {
				_, err := j.SettleByPerson(ctx, id, "ops-anna", "the bank has no such thing")
				require.NoError(t, err)
			}
			e, err = j.Entry(ctx, id)
			require.NoError(t, err)
			require.False(t, e.InDoubt())
			assert.Equal(t, time.Hour, st.ttlOf(id), "a settled entry leaves with the retention")
		})
	}
}
