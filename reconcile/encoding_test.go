package reconcile_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/settlescript"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

// checkingStore checks every account state written: it must be what
// encoding its decoded state afresh gives, so that no change of a
// payment is lost to the copy of its earlier encoding (or to the
// Reconciler's cache of decoded states).
type checkingStore struct {
	store.Store
	mu     sync.Mutex
	writes int
	bad    int
}

func (s *checkingStore) check(key string, v []byte) {
	if v == nil || !strings.HasPrefix(key, "reconcile/account/") {
		return
	}
	fresh, err := reconcile.Reencode(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if err != nil || !bytes.Equal(fresh, v) {
		s.bad++
	}
}

func (s *checkingStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s.check(key, value)
	return s.Store.Put(ctx, key, value, ttl)
}

func (s *checkingStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	return s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		v, ttl, err := fn(old, found)
		if err == nil {
			s.check(key, v)
		}
		return v, ttl, err
	})
}

// TestWrittenStatesAreFresh plays the month (every way a payment
// changes: tracked, accepted, rejected, settled, late, stalled, returned,
// closed) and checks every state written.
func TestWrittenStatesAreFresh(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &checkingStore{Store: store.NewMemoryStore()}
	w, err := settlescript.NewWorld(ctx, st, settlescript.Month.Start)
	require.NoError(t, err)
	r, err := reconcile.New(st, reconcile.WithClock(w.Clock.Now))
	require.NoError(t, err)
	res, err := settlescript.NewScript(settlescript.Month).Play(ctx, w, r, nil)
	require.NoError(t, err)
	assert.Equal(t, res.Payments, res.Correct)
	assert.Greater(t, st.writes, 200)
	assert.Zero(t, st.bad, "states written whose fresh encoding differs")
}
