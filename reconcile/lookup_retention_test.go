package reconcile_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

// clockStore is a memory store whose values expire at the fixture's
// clock, not the machine's: a key's ttl counts on the test's days.
type clockStore struct {
	store.Store
	clk *testtpp.Clock
	mu  sync.Mutex
	exp map[string]time.Time
}

func newClockStore(clk *testtpp.Clock) *clockStore {
	return &clockStore{Store: store.NewMemoryStore(), clk: clk, exp: map[string]time.Time{}}
}

// expired deletes key once its ttl ran out.
func (s *clockStore) expired(ctx context.Context, key string) {
	s.mu.Lock()
	e, ok := s.exp[key]
	gone := ok && !s.clk.Now().Before(e)
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
		s.exp[key] = s.clk.Now().Add(ttl)
	} else {
		delete(s.exp, key)
	}
}

func (s *clockStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.expired(ctx, key)
	return s.Store.Get(ctx, key)
}

func (s *clockStore) Take(ctx context.Context, key string) ([]byte, error) {
	s.expired(ctx, key)
	return s.Store.Take(ctx, key)
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

// newClockedFixture is newFixture on a store whose values expire at the
// fixture's clock.
func newClockedFixture(t *testing.T, start string) *fixture {
	t.Helper()
	clk := testtpp.NewClock(oslo(start))
	f := &fixture{t: t, st: newClockStore(clk), clk: clk, col: &collector{}}
	f.r = f.reconciler()
	require.NoError(t, f.r.Watch(t.Context(), acct, accounts.Account{IBAN: merchantIBAN, BBAN: merchantBBAN}))
	return f
}

// TestLookupLivesAsLongAsThePayment: a payment the state keeps past
// Retention after its creation (settled by a credit booked days later,
// kept as long as that credit is seen; or holding a credit booked in the
// future, kept until a read settles it) is found by Payment and Status as
// long as it is kept, on a store whose values expire: the key that finds
// its account lives as long as the payment. Before, that key expired
// Retention after Track, and both calls answered ErrNotTracked for a
// payment the state, Rounds and events still showed.
func TestLookupLivesAsLongAsThePayment(t *testing.T) {
	t.Parallel()
	t.Run("settled by a later credit", func(t *testing.T) {
		t.Parallel()
		f := newClockedFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), futureKID, "")
		f.at("2026-03-24")
		require.Len(t, f.apply(credit("c1", "2026-03-24", nok("1250.00"), "KID "+futureKID)).Settled, 1)

		f.at("2026-07-20") // past Retention after p1's creation, not after c1's date
		f.apply()
		st, err := f.r.Payment(t.Context(), "p1")
		require.NoError(t, err, "kept in the state, found")
		assert.Equal(t, reconcile.Settled, st.Settlement)
		assert.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusACSC))

		f.at("2026-07-23") // past Retention after c1's date: both go
		f.apply()
		_, err = f.r.Payment(t.Context(), "p1")
		assert.ErrorIs(t, err, reconcile.ErrNotTracked)
	})
	t.Run("holding a credit, the account not read", func(t *testing.T) {
		t.Parallel()
		f := newClockedFixture(t, "2026-03-16")
		f.pay("p1", nok("1250.00"), futureKID, "")
		c1 := credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)
		r, err := f.r.Apply(t.Context(), future(c1))
		require.NoError(t, err)
		require.Len(t, r.Held, 1)

		f.at("2026-07-20") // past Retention after both, no read since
		require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusACSC))
		assert.Equal(t, c1.Key, f.state("p1").HeldBooking)
		f.at("2026-11-30") // more than Retention on again, a call between
		require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusACSC))
		r = f.apply()
		require.Len(t, r.Settled, 1)
		assert.Equal(t, reconcile.Settled, f.state("p1").Settlement)
	})
}
