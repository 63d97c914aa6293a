package budget_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestBudgetClockSkew runs two replicas on one shared store for three
// days, one with its clock skew off the other's, each trying a balances
// call without the PSU every minute. Within BudgetClockMargin of skew,
// ahead or behind, the bank never receives more than 4 calls in any 24
// hours of its own clock, and still receives 4 per window and margin; a
// skew beyond the margin lets a 5th call through, which shows that the
// test can see one.
func TestBudgetClockSkew(t *testing.T) {
	margin := budget.ClockMargin
	for _, tc := range []struct {
		skew   time.Duration
		beyond bool // beyond the margin: the bank sees more than 4 calls in 24 hours
	}{
		{margin, false},
		{margin - time.Minute, false},
		{-margin, false},
		{time.Minute, false},
		{margin + 2*time.Minute, true},
	} {
		t.Run(fmt.Sprint(tc.skew), func(t *testing.T) {
			bankSeen := skewDays(t, tc.skew)
			most := 0
			for i, at := range bankSeen {
				n := 0
				for _, later := range bankSeen[i:] {
					if later.Sub(at) < budget.DefaultWindow {
						n++
					}
				}
				most = max(most, n)
			}
			if tc.beyond {
				assert.Greater(t, most, budget.DefaultLimit, "beyond the margin")
				return
			}
			assert.Equal(t, budget.DefaultLimit, most, "the most calls the bank received in 24 hours of its clock")
			// Not refusing everything: 4 calls in every window and margin,
			// minute steps, the first at once.
			span := budget.DefaultWindow + margin + time.Minute + max(tc.skew, 0)
			assert.GreaterOrEqual(t, len(bankSeen), 4*int(3*24*time.Hour/span), "calls received in 3 days")
		})
	}
}

// skewDays runs the replicas (the second one's clock skew ahead of the
// bank's and the first one's) and returns the bank's times of the calls
// it received, in order.
func skewDays(t *testing.T, skew time.Duration) []time.Time {
	bank := testtpp.NewClock(time.Now()) // the certificate is valid now
	var mu sync.Mutex
	var seen []time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, bank.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"balances":[{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"closingBooked"}]}`)
	}))
	t.Cleanup(ts.Close)
	shared := &clockStore{Store: store.NewMemoryStore(), now: bank.Now, expires: map[string]time.Time{}}
	creds := testtpp.Credentials(t, "Skew TPP")
	replica := func(skew time.Duration) *accounts.Service {
		c, err := client.New(ts.URL, creds, client.WithStore(shared), client.WithRetryPolicy(client.RetryPolicy{}),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
			client.WithClock(func() time.Time { return bank.Now().Add(skew) }))
		require.NoError(t, err)
		s, err := accounts.New(c)
		require.NoError(t, err)
		return s
	}
	replicas := []*accounts.Service{replica(0), replica(skew)}
	sess := &sca.Session{PSUID: "22222222-2222-2222-2222-222222222222", TPPSessionID: "11111111-1111-1111-1111-111111111111",
		Context: client.Private, SCAAt: bank.Now()}
	ro := sess.RequestOptions(nil)
	for step := range 3 * 24 * 60 {
		for i := range replicas {
			r := replicas[(step+i)%len(replicas)] // each goes first in turn
			_, err := r.Balances(t.Context(), "acct-1", ro)
			if err != nil {
				require.ErrorIs(t, err, budget.ErrExhausted, "step %d", step)
			}
		}
		bank.Add(time.Minute)
	}
	mu.Lock()
	defer mu.Unlock()
	return seen
}

// clockStore is a shared store whose values expire on the bank's clock
// (the store's own), not on the replicas'.
type clockStore struct {
	store.Store
	now     func() time.Time
	mu      sync.Mutex
	expires map[string]time.Time
}

func (s *clockStore) expired(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.expires[key]
	return ok && !s.now().Before(e)
}

func (s *clockStore) Get(ctx context.Context, key string) ([]byte, error) {
	if s.expired(key) {
		return nil, store.ErrNotStored
	}
	return s.Store.Get(ctx, key)
}

func (s *clockStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	gone := s.expired(key)
	return s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		if gone {
			old, found = nil, false
		}
		v, ttl, err := fn(old, found)
		if err == nil {
			s.mu.Lock()
			delete(s.expires, key)
			if ttl > 0 {
				s.expires[key] = s.now().Add(ttl)
			}
			s.mu.Unlock()
		}
		return v, 0, err
	})
}
