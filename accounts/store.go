package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// BudgetStore keeps the call times of [Budget]s by key ([BudgetKey.String]).
//
// Update loads the times stored under key (none for a new key), calls fn
// with them and stores what fn returns (an empty result may delete the
// key). When fn returns an error nothing is stored and Update returns it.
// Update must be atomic per key against other Updates of the same store:
// [MemoryBudgetStore] and [BudgetStoreFromKV] lock within the process; a
// store shared by several processes should run fn inside a transaction
// (SQL SELECT ... FOR UPDATE, Redis WATCH/MULTI, a compare-and-swap
// loop) so that two instances cannot both take the last call.
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

// BudgetStoreFromKV keeps budget call times in kv, one JSON value per key.
// notFound is the error kv's Get returns (possibly wrapped) for a missing
// key, for example sca.ErrNotFound:
//
//	fs, _ := sca.NewFileStore(dir)
//	svc := accounts.New(c, accounts.WithBudgetStore(accounts.BudgetStoreFromKV(fs, sca.ErrNotFound)))
//
// Updates are atomic within the process (one lock per returned store);
// give every Service of a process the same returned store. Across
// processes, Get then Put is not atomic: two instances may both take the
// last call of a budget. A value that cannot be decoded is an error, and
// the call is not sent.
func BudgetStoreFromKV(kv KV, notFound error) BudgetStore {
	return &kvBudgetStore{kv: kv, notFound: notFound}
}

type kvBudgetStore struct {
	mu       sync.Mutex
	kv       KV
	notFound error
}

// kvBudget is the stored form of one budget.
type kvBudget struct {
	Calls []time.Time `json:"calls"`
}

func (s *kvBudgetStore) Update(ctx context.Context, key string, fn func([]time.Time) ([]time.Time, error)) error {
	if s.kv == nil {
		return errors.New("accounts: BudgetStoreFromKV(nil)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.kv.Get(ctx, key)
	switch {
	case err != nil && s.notFound != nil && errors.Is(err, s.notFound):
		b = nil
	case err != nil:
		return err
	}
	var old kvBudget
	if len(b) > 0 {
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("accounts: stored budget is not readable: %w", err)
		}
	}
	calls, err := fn(slices.Clone(old.Calls))
	if err != nil {
		return err
	}
	if slices.EqualFunc(calls, old.Calls, time.Time.Equal) && len(b) > 0 {
		return nil
	}
	if len(calls) == 0 {
		if len(b) == 0 {
			return nil
		}
		return s.kv.Delete(ctx, key)
	}
	out, err := json.Marshal(kvBudget{Calls: calls})
	if err != nil {
		return err
	}
	return s.kv.Put(ctx, key, out)
}
