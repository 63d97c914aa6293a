package refresh_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
)

// Two replicas that run the same jobs at once over one shared store
// refresh each account once in the round: the other meets the first's
// claim and defers the account, without a call. Each account's calls
// were reserved in one write.
func TestReplicasRefreshEachAccountOnce(t *testing.T) {
	t.Parallel()
	shared := &writeCounter{Store: store.NewMemoryStore()}
	b := newBank(t, refreshbench.Seed(6, 2, 1, 2, time.Now().Add(-time.Hour)), client.WithStore(shared))
	c2, err := client.New(b.srv.URL, b.creds, client.WithHTTPClient(b.srv.Client()), client.WithClock(b.clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(shared))
	require.NoError(t, err)
	svc2, err := accounts.New(c2)
	require.NoError(t, err)
	jobs := jobsOf(t, b)
	var mu sync.Mutex
	done := map[string]int{}
	var wg sync.WaitGroup
	for _, svc := range []*accounts.Service{b.svc, svc2} {
		r, err := refresh.New(svc, refresh.WithWorkers(2))
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for res, err := range r.Run(t.Context(), slices.Values(jobs)) {
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				switch {
				case res.Outcome == refresh.Done:
					done[res.Job.AccountID()]++
				case !errors.Is(res.Err, budget.ErrClaimed) || !res.Deferred || res.Calls != 0:
					t.Errorf("%v: %v", res, res.Err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, done, len(jobs))
	for id, n := range done {
		assert.Equal(t, 1, n, "refreshes of %s", id)
	}
	// One write per account refreshed (its reservation and claim), none
	// for a deferred one.
	assert.EqualValues(t, len(jobs), shared.writes.Load(), "durable writes")
}

// writeCounter counts the writes a store makes: Puts, and Updates whose
// function did not refuse (an Update that returns fn's error writes
// nothing).
type writeCounter struct {
	store.Store
	writes atomic.Int64
}

func (s *writeCounter) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	err := s.Store.Update(ctx, key, fn)
	if err == nil {
		s.writes.Add(1)
	}
	return err
}

func (s *writeCounter) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	s.writes.Add(1)
	return s.Store.Put(ctx, key, v, ttl)
}
