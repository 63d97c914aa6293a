package txsync_test

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// clockStore is a store whose values expire at its own clock.
type clockStore struct {
	store.Store
	mu  sync.Mutex
	now time.Time
	exp map[string]time.Time
}

func (s *clockStore) expired(ctx context.Context, key string) {
	s.mu.Lock()
	e, ok := s.exp[key]
	gone := ok && !s.now.Before(e)
	if gone {
		delete(s.exp, key)
	}
	s.mu.Unlock()
	if gone {
		_ = s.Store.Delete(ctx, key)
	}
}

func (s *clockStore) set(key string, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ttl > 0 {
		s.exp[key] = s.now.Add(ttl)
	} else {
		delete(s.exp, key)
	}
}

func (s *clockStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.expired(ctx, key)
	return s.Store.Get(ctx, key)
}

func (s *clockStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	s.set(key, ttl)
	return s.Store.Put(ctx, key, v, 0)
}

func (s *clockStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	s.expired(ctx, key)
	return s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		v, ttl, err := fn(old, found)
		if err == nil {
			s.set(key, ttl)
		}
		return v, 0, err
	})
}

func (s *clockStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return s.Store.Keys(ctx, prefix)
}

// An account read every day under a Syncer whose state is kept two days
// after its last read (WithStateTTL) stays linked for as long as its
// consent lasts: the links Link wrote expired two days after the Link,
// whatever the reads, and the third day's read of the account failed
// with ErrNotLinked in the middle of its consent. A re-consent within the
// state's TTL of the last read keeps the account's key (its state and
// its entries' keys).
func TestLinksOutliveReadsWithinTheStateTTL(t *testing.T) {
	ctx := t.Context()
	st := &clockStore{Store: store.NewMemoryStore(), now: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), exp: map[string]time.Time{}}
	s, err := txsync.New(st, txsync.WithStateTTL(48*time.Hour), txsync.WithClock(func() time.Time { return st.now }))
	require.NoError(t, err)
	acct := []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"}}
	l, err := s.Link(ctx, "user-1", acct, nil)
	require.NoError(t, err)
	for range 89 {
		st.now = st.now.Add(24 * time.Hour)
		_, err := s.ApplyResource(ctx, "r1", txsync.Read{Booked: []accounts.Transaction{booked(t, "1", "2026-03-02", "-10.00", "A", "a")}})
		require.NoError(t, err, "a read on %s, within the consent", st.now.Format(time.DateOnly))
	}
	st.now = st.now.Add(24 * time.Hour) // the re-consent, a day after the last read
	l2, err := s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r2", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	require.Equal(t, l.Accounts[0].Key, l2.Accounts[0].Key, "the account keeps its key across the consents")
	require.False(t, l2.Accounts[0].New)
}
