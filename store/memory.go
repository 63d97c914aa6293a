package store

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemoryStore is a [Store] in the memory of one process: sessions and
// budgets kept in it are lost on restart and not shared with other
// processes. It is the default of the SDK's client. The zero value is
// ready to use.
type MemoryStore struct {
	mu   sync.Mutex
	m    map[string]memEntry
	now  func() time.Time // nil: time.Now
	puts int              // writes since the last sweep
}

type memEntry struct {
	value   []byte
	expires time.Time // zero: never
}

// sweepEvery is the number of writes after which a MemoryStore drops its
// expired entries, so that memory stays bounded by the live entries.
const sweepEvery = 1024

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

func (s *MemoryStore) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// live returns the entry under key when it exists and has not expired.
// s.mu is held.
func (s *MemoryStore) live(key string, now time.Time) (memEntry, bool) {
	e, ok := s.m[key]
	if !ok {
		return memEntry{}, false
	}
	if !e.expires.IsZero() && !now.Before(e.expires) {
		delete(s.m, key)
		return memEntry{}, false
	}
	return e, true
}

// set stores or deletes key. s.mu is held.
func (s *MemoryStore) set(key string, value []byte, ttl time.Duration, now time.Time) {
	if value == nil {
		delete(s.m, key)
		return
	}
	if s.m == nil {
		s.m = map[string]memEntry{}
	}
	s.m[key] = memEntry{value: slices.Clone(value), expires: expiry(now, ttl)}
	if s.puts++; s.puts >= sweepEvery {
		s.puts = 0
		for k, e := range s.m {
			if !e.expires.IsZero() && !now.Before(e.expires) {
				delete(s.m, k)
			}
		}
	}
}

func begin(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return CheckKey(key)
}

// Get implements [Store].
func (s *MemoryStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live(key, s.clock())
	if !ok {
		return nil, ErrNotStored
	}
	return slices.Clone(e.value), nil
}

// Put implements [Store].
func (s *MemoryStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	if err := CheckValue(value); err != nil {
		return err
	}
	if value == nil {
		value = []byte{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set(key, value, ttl, s.clock())
	return nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, key string) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Take implements [Store].
func (s *MemoryStore) Take(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live(key, s.clock())
	if !ok {
		return nil, ErrNotStored
	}
	delete(s.m, key)
	return e.value, nil
}

// Update implements [Store]. fn runs under the store's lock, once.
func (s *MemoryStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	e, found := s.live(key, now)
	value, ttl, err := fn(slices.Clone(e.value), found)
	if err != nil {
		return err
	}
	if err := CheckValue(value); err != nil {
		return err
	}
	s.set(key, value, ttl, now)
	return nil
}

// Keys implements [Store]. It lists the matching keys when the iteration
// starts.
func (s *MemoryStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := ctx.Err(); err != nil {
			yield("", err)
			return
		}
		s.mu.Lock()
		now := s.clock()
		var keys []string
		for k := range s.m {
			if strings.HasPrefix(k, prefix) {
				if _, ok := s.live(k, now); ok {
					keys = append(keys, k)
				}
			}
		}
		s.mu.Unlock()
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, nil) {
				return
			}
		}
	}
}
