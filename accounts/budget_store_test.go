package accounts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/sca"
)

// Keys of two budgets that BudgetStoreFromKV locks apart (different
// stripes of its fallback locks).
const (
	budgetKeyA = "accounts/budget/a"
	budgetKeyB = "accounts/budget/b"
)

// gateKV is a KV (no Update) whose Get of gated waits, until open is
// closed, after closing entered.
type gateKV struct {
	*sca.MemoryStore
	gated         string
	entered, open chan struct{}
	once          sync.Once
}

// wait holds a call on gated until open is closed.
func (k *gateKV) wait(key string) {
	if key != k.gated {
		return
	}
	select {
	case <-k.open:
		return
	default:
	}
	k.once.Do(func() { close(k.entered) })
	<-k.open
}

func (k *gateKV) Get(ctx context.Context, key string) ([]byte, error) {
	k.wait(key)
	return k.MemoryStore.Get(ctx, key)
}

// updaterKV is a KVUpdater whose Update of gated waits like gateKV's Get.
type updaterKV struct {
	*gateKV
	mu sync.Mutex
}

func (k *updaterKV) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, error)) error {
	k.wait(key)
	k.mu.Lock()
	defer k.mu.Unlock()
	old, err := k.MemoryStore.Get(ctx, key)
	v, err := fn(old, err == nil)
	if err != nil {
		return err
	}
	if v == nil {
		return k.MemoryStore.Delete(ctx, key)
	}
	return k.MemoryStore.Put(ctx, key, v)
}

// While the budget of one account is being updated (its store is slow:
// an fsync), the budget of another account is updated without waiting.
func TestBudgetStoreFromKVDoesNotSerialiseAccounts(t *testing.T) {
	t.Parallel()
	newGate := func() *gateKV {
		return &gateKV{MemoryStore: sca.NewMemoryStore(), gated: budgetKeyA, entered: make(chan struct{}), open: make(chan struct{})}
	}
	for _, tc := range []struct {
		name string
		kv   func() (accounts.KV, *gateKV)
	}{
		{"Get and Put, per-key locks", func() (accounts.KV, *gateKV) { g := newGate(); return g, g }},
		{"KVUpdater, no lock of its own", func() (accounts.KV, *gateKV) { u := &updaterKV{gateKV: newGate()}; return u, u.gateKV }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			kv, gate := tc.kv()
			store := accounts.BudgetStoreFromKV(kv, sca.ErrNotFound)
			now := time.Now()
			add := func(calls []time.Time) ([]time.Time, error) { return append(calls, now), nil }

			doneA := make(chan error, 1)
			go func() { doneA <- store.Update(ctx, budgetKeyA, add) }()
			<-gate.entered
			doneB := make(chan error, 1)
			go func() { doneB <- store.Update(ctx, budgetKeyB, add) }()
			select {
			case err := <-doneB:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("the update of account B waited for account A's")
			}
			close(gate.open)
			require.NoError(t, <-doneA)
			for _, k := range []string{budgetKeyA, budgetKeyB} {
				require.NoError(t, store.Update(ctx, k, func(calls []time.Time) ([]time.Time, error) {
					assert.Len(t, calls, 1, k)
					return calls, nil
				}))
			}
		})
	}
}
