package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"
)

// BudgetStore keeps the call times of [Budget]s by key ([BudgetKey.String]).
//
// Update loads the times stored under key (none for a new key), calls fn
// with them and stores what fn returns (an empty result may delete the
// key). When fn returns an error nothing is stored and Update returns it.
// Update must be atomic per key against other Updates of the same store,
// and should not make Updates of other keys wait (a store that writes to
// disk would otherwise serialise every account behind one fsync):
// [MemoryBudgetStore] locks within the process (it never waits on I/O);
// [BudgetStoreFromKV] per key, across processes when its KV can (see
// [KVUpdater]). A store shared by several processes should run fn inside
// a transaction (SQL SELECT ... FOR UPDATE, Redis WATCH/MULTI, a
// compare-and-swap loop) so that two instances cannot both take the last
// call.
type BudgetStore interface {
	Update(ctx context.Context, key string, fn func(calls []time.Time) ([]time.Time, error)) error
}

// MemoryBudgetStore is a [BudgetStore] in memory, for one process. The zero
// value is ready to use.
type MemoryBudgetStore struct {
	mu sync.Mutex
	m  map[string][]time.Time
}

// NewMemoryBudgetStore returns an empty in-memory store.
func NewMemoryBudgetStore() *MemoryBudgetStore { return &MemoryBudgetStore{} }

// Update implements [BudgetStore].
func (s *MemoryBudgetStore) Update(ctx context.Context, key string, fn func([]time.Time) ([]time.Time, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	calls, err := fn(slices.Clone(s.m[key]))
	if err != nil {
		return err
	}
	if len(calls) == 0 {
		delete(s.m, key)
		return nil
	}
	if s.m == nil {
		s.m = map[string][]time.Time{}
	}
	s.m[key] = slices.Clone(calls)
	return nil
}

// KV is a key-value store of small byte values, such as the sca package's
// Store (MemoryStore, FileStore): Get returns an error matching the
// store's not-found error for a missing key, and Delete of a missing key
// is not an error.
type KV interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
}

// KVUpdater is implemented by a [KV] that runs a read-modify-write of one
// key as one atomic step, also against other processes sharing the store:
// the sca package's FileStore does, with an OS file lock. Update calls fn
// with the value under key and true (nil and false when there is none)
// and stores what fn returns; a nil result deletes the key; an error from
// fn leaves the value as it was and is returned.
type KVUpdater interface {
	Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, error)) error
}

// BudgetStoreFromKV keeps budget call times in kv, one JSON value per key.
// notFound is the error kv's Get returns (possibly wrapped) for a missing
// key, for example sca.ErrNotFound:
//
//	fs, _ := sca.NewFileStore(dir)
//	svc := accounts.New(c, accounts.WithBudgetStore(accounts.BudgetStoreFromKV(fs, sca.ErrNotFound)))
//
// When kv is a [KVUpdater] (the sca FileStore is), every update is kv's
// atomic Update, so a budget shared by several processes through kv is
// never over-spent, and the returned store adds no lock of its own (the
// FileStore locks per key). Otherwise updates are Get then Put under a
// lock of the returned store for the key (one of kvLockStripes, so
// updates of different accounts rarely wait on each other): atomic within
// the process only (give every Service of a process the same returned
// store), and two processes may both take the last call of a budget. A value that cannot be decoded is an error, and
// the call is not sent.
func BudgetStoreFromKV(kv KV, notFound error) BudgetStore {
	return &kvBudgetStore{kv: kv, notFound: notFound}
}

// kvLockStripes is the number of per-key locks of a BudgetStoreFromKV
// whose KV is not a KVUpdater.
const kvLockStripes = 64

type kvBudgetStore struct {
	locks    [kvLockStripes]sync.Mutex
	kv       KV
	notFound error
}

// lock returns the lock of key's stripe.
func (s *kvBudgetStore) lock(key string) *sync.Mutex {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return &s.locks[h.Sum32()%kvLockStripes]
}

// kvBudget is the stored form of one budget.
type kvBudget struct {
	Calls []time.Time `json:"calls"`
}

func (s *kvBudgetStore) Update(ctx context.Context, key string, fn func([]time.Time) ([]time.Time, error)) error {
	if s.kv == nil {
		return errors.New("accounts: BudgetStoreFromKV(nil)")
	}
	if u, ok := s.kv.(KVUpdater); ok {
		return u.Update(ctx, key, func(old []byte, _ bool) ([]byte, error) { return applyBudget(old, fn) })
	}
	mu := s.lock(key)
	mu.Lock()
	defer mu.Unlock()
	b, err := s.kv.Get(ctx, key)
	switch {
	case err != nil && s.notFound != nil && errors.Is(err, s.notFound):
		b = nil
	case err != nil:
		return err
	}
	out, err := applyBudget(b, fn)
	switch {
	case err != nil:
		return err
	case out == nil && len(b) == 0:
		return nil
	case out == nil:
		return s.kv.Delete(ctx, key)
	case bytes.Equal(out, b):
		return nil
	}
	return s.kv.Put(ctx, key, out)
}

// applyBudget decodes the stored value old (none when empty), runs fn on
// its call times and returns the value to store: old itself when the times
// did not change, nil when none are left.
func applyBudget(old []byte, fn func([]time.Time) ([]time.Time, error)) ([]byte, error) {
	var prev kvBudget
	if len(old) > 0 {
		if err := json.Unmarshal(old, &prev); err != nil {
			return nil, fmt.Errorf("accounts: stored budget is not readable: %w", err)
		}
	}
	calls, err := fn(slices.Clone(prev.Calls))
	if err != nil {
		return nil, err
	}
	if len(calls) == 0 {
		return nil, nil
	}
	if len(old) > 0 && slices.EqualFunc(calls, prev.Calls, time.Time.Equal) {
		return old, nil
	}
	return json.Marshal(kvBudget{Calls: calls})
}
