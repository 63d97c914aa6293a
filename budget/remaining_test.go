package budget_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// writeCounter counts the writes a store receives.
type writeCounter struct {
	store.Store
	writes atomic.Int64
}

func (s *writeCounter) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	s.writes.Add(1)
	return s.Store.Update(ctx, key, fn)
}

func (s *writeCounter) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	s.writes.Add(1)
	return s.Store.Put(ctx, key, v, ttl)
}

// Remaining only reads: asking before every call (as a background
// refresher does) costs no write on a store that syncs every write.
func TestRemainingDoesNotWrite(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	st := &writeCounter{Store: store.NewMemoryStore()}
	svc := newService(t, bank.client(t, client.WithStore(st)))

	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining)
	assert.Zero(t, st.writes.Load())

	_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
	require.NoError(t, err)
	spent := st.writes.Load()
	assert.Equal(t, int64(1), spent, "one write per counted call")
	a, err = budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining)
	assert.False(t, a.NextAt.IsZero())
	assert.Equal(t, spent, st.writes.Load())
}
