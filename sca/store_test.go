package sca

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

func newFileStore(t *testing.T) *store.FileStore {
	t.Helper()
	fs, err := store.NewFileStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	return fs
}

// stores returns one store of each kind the SDK ships in its core module.
func stores(t *testing.T) map[string]store.Store {
	return map[string]store.Store{"memory": store.NewMemoryStore(), "file": newFileStore(t)}
}

func validSession() *Session {
	return &Session{PSUID: okPSU, TPPSessionID: okSession, Context: client.Private, SCAAt: t0}
}

func TestSessionKeysRefused(t *testing.T) {
	t.Parallel()
	bad := []string{"", "../etc/passwd", "a/../../b", "..", "/etc/passwd", `..\windows`, `a\b`, "a\x00b", "a\nb",
		strings.Repeat("k", maxKeyLen+1)}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			for _, k := range bad {
				assert.ErrorIs(t, SaveSession(ctx, st, k, validSession()), store.ErrInvalidKey, "%q", k)
				_, err := LoadSession(ctx, st, k)
				assert.ErrorIs(t, err, store.ErrInvalidKey, "%q", k)
				assert.ErrorIs(t, deleteSession(ctx, st, k), store.ErrInvalidKey, "%q", k)
			}
			// The longest key fits the store behind its prefix.
			require.NoError(t, SaveSession(ctx, st, strings.Repeat("k", maxKeyLen), validSession()))
			require.NoError(t, SaveSession(ctx, st, "a..b/c.d", validSession()), "dots inside names are fine")
		})
	}
}

func TestTakePendingOnce(t *testing.T) {
	t.Parallel()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			p := pendingFor(okState)
			require.NoError(t, savePending(ctx, st, p))
			var wins atomic.Int32
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := takePending(ctx, st, okState)
					if err == nil {
						wins.Add(1)
						assert.Equal(t, p, got)
						return
					}
					assert.ErrorIs(t, err, ErrNoPending)
				}()
			}
			wg.Wait()
			assert.Equal(t, int32(1), wins.Load(), "a pending SCA is taken once")
			assert.ErrorIs(t, savePending(ctx, st, nil), ErrNoPending)
			for _, forged := range []string{"", "../../etc/passwd", "a\\b", strings.Repeat("s", 300)} {
				_, err := takePending(ctx, st, forged)
				assert.ErrorIs(t, err, ErrNoPending, "%q", forged)
			}
		})
	}
}

func TestSessionHelpers(t *testing.T) {
	t.Parallel()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			_, err := LoadSession(ctx, st, "user-1")
			require.ErrorIs(t, err, store.ErrNotStored)
			s := validSession()
			require.NoError(t, SaveSession(ctx, st, "user-1", s))
			assert.Equal(t, "user-1", s.Key)
			got, err := LoadSession(ctx, st, "user-1")
			require.NoError(t, err)
			assert.True(t, s.SCAAt.Equal(got.SCAAt))
			got.SCAAt = s.SCAAt
			assert.Equal(t, s, got)
			require.ErrorIs(t, SaveSession(ctx, st, "user-2", &Session{PSUID: "13039319955"}), ErrInvalidSession)

			require.NoError(t, st.Put(ctx, sessionPrefix+"broken", []byte("{"), 0))
			_, err = LoadSession(ctx, st, "broken")
			assert.ErrorIs(t, err, ErrUndecodableSession)

			require.NoError(t, deleteSession(ctx, st, "user-1"))
			_, err = LoadSession(ctx, st, "user-1")
			assert.ErrorIs(t, err, store.ErrNotStored)

			p := pendingFor(okState)
			require.NoError(t, savePending(ctx, st, p))
			got2, err := takePending(ctx, st, okState)
			require.NoError(t, err)
			assert.Equal(t, p.TPPSessionID, got2.TPPSessionID)
			_, err = takePending(ctx, st, okState)
			assert.ErrorIs(t, err, ErrNoPending)
		})
	}
}

// ttlStore records the ttl of every Put.
type ttlStore struct {
	store.Store
	mu   sync.Mutex
	ttls map[string]time.Duration
}

func (s *ttlStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	s.ttls[key] = ttl
	s.mu.Unlock()
	return s.Store.Put(ctx, key, value, ttl)
}

// A pending SCA is saved with a time to live (its validity and an hour),
// so that the store forgets the SCAs of PSUs who never came back; a
// session is kept until deleted.
func TestPendingExpiresFromTheStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &ttlStore{Store: store.NewMemoryStore(), ttls: map[string]time.Duration{}}
	p := pendingFor(okState)
	require.NoError(t, savePending(ctx, st, p))
	assert.Equal(t, DefaultPendingTTL+pendingGrace, st.ttls[pendingPrefix+okState])
	long := pendingFor("long-state")
	long.ExpiresAt = long.CreatedAt.Add(2 * time.Hour)
	require.NoError(t, savePending(ctx, st, long))
	assert.Equal(t, 2*time.Hour+pendingGrace, st.ttls[pendingPrefix+"long-state"])
	unset := &Pending{State: "unset-state"}
	require.NoError(t, savePending(ctx, st, unset))
	assert.Equal(t, DefaultPendingTTL+pendingGrace, st.ttls[pendingPrefix+"unset-state"], "no times: the default validity")
	require.NoError(t, SaveSession(ctx, st, "user-1", validSession()))
	assert.Zero(t, st.ttls[sessionPrefix+"user-1"], "a session has no ttl")

}
