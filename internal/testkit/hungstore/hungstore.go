// Package hungstore is a store.Store standing for a database that stopped
// answering, for the tests that bound the SDK's store calls: while it is
// hung, each call of the chosen methods on the keys under the chosen
// prefixes waits for its context's end (or the test's) and writes
// nothing; every other call goes to a memory store.
package hungstore

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/store"
)

// Store is the hung store. Hung is set by New; clear it for the database
// to answer again.
type Store struct {
	store.Store
	Hung     atomic.Bool
	methods  []string
	prefixes []string
	gone     chan struct{}
}

// New returns a Store, hung, whose calls of methods ("Get", "Put",
// "Delete", "Take", "Update", "Keys"; none: every one) on keys under
// prefixes (none: every key; for Keys, its prefix) hang. The calls that
// hang end when t ends.
func New(t testing.TB, methods []string, prefixes ...string) *Store {
	s := &Store{Store: store.NewMemoryStore(), methods: methods, prefixes: prefixes, gone: make(chan struct{})}
	s.Hung.Store(true)
	t.Cleanup(func() { close(s.gone) })
	return s
}

// wait reports whether the call method on key hangs, and then waits for
// its end.
func (s *Store) wait(ctx context.Context, method, key string) (bool, error) {
	if !s.Hung.Load() ||
		len(s.methods) > 0 && !slices.Contains(s.methods, method) ||
		len(s.prefixes) > 0 && !slices.ContainsFunc(s.prefixes, func(p string) bool { return strings.HasPrefix(key, p) }) {
		return false, nil
	}
	select {
	case <-ctx.Done():
		return true, ctx.Err()
	case <-s.gone:
		return true, errors.New("hungstore: test over")
	}
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if hung, err := s.wait(ctx, "Get", key); hung {
		return nil, err
	}
	return s.Store.Get(ctx, key)
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if hung, err := s.wait(ctx, "Put", key); hung {
		return err
	}
	return s.Store.Put(ctx, key, v, ttl)
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if hung, err := s.wait(ctx, "Delete", key); hung {
		return err
	}
	return s.Store.Delete(ctx, key)
}

// Take implements store.Store.
func (s *Store) Take(ctx context.Context, key string) ([]byte, error) {
	if hung, err := s.wait(ctx, "Take", key); hung {
		return nil, err
	}
	return s.Store.Take(ctx, key)
}

// Update implements store.Store.
func (s *Store) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if hung, err := s.wait(ctx, "Update", key); hung {
		return err
	}
	return s.Store.Update(ctx, key, fn)
}

// Keys implements store.Store.
func (s *Store) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if hung, err := s.wait(ctx, "Keys", prefix); hung {
			yield("", err)
			return
		}
		for k, err := range s.Store.Keys(ctx, prefix) {
			if !yield(k, err) {
				return
			}
		}
	}
}

// Within runs f and returns its error, failing t when f waits on the hung
// store for a minute (what names f in the failure).
func Within(t testing.TB, what string, f func() error) error {
	t.Helper()
	ended := make(chan error, 1)
	go func() { ended <- f() }()
	select {
	case err := <-ended:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s waits on the hung store", what)
		return nil
	}
}
