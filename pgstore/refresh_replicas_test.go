package pgstore_test

import (
	"errors"
	"slices"
	"sync"
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
	"github.com/tppkit/psd2/sandbox/emulator"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// Two in-process refreshers, each on its own pool, over one PostgreSQL
// store and the same jobs at once: each account is refreshed exactly once
// in the round, with one durable write (its reservation and claim).
func TestTwoRefreshersOneStore(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(t)), emulator.WithClock(clock.Now))
	t.Cleanup(srv.Close)
	creds, err := srv.NewTPP("Replicas")
	require.NoError(t, err)
	seeded, err := srv.Control().Seed(t.Context(), creds.Certificate, refreshbench.Seed(20, 2, 1, 2, clock.Now().Add(-time.Hour)))
	require.NoError(t, err)
	var jobs []refresh.Job
	for _, cu := range seeded.Customers {
		s := refreshbench.Remembered(t, cu)
		for _, id := range s.AccountIDs {
			jobs = append(jobs, newJob(t, s, id, false))
		}
		for _, id := range s.CardAccountIDs {
			jobs = append(jobs, newJob(t, s, id, true))
		}
	}
	var writes []*refreshbench.Counted
	var mu sync.Mutex
	done := map[string]int{}
	var wg sync.WaitGroup
	for range 2 {
		st := &refreshbench.Counted{Store: newStore(t, schema, 4)}
		writes = append(writes, st)
		c, err := client.New(srv.URL, creds, client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(st))
		require.NoError(t, err)
		svc, err := accounts.New(c)
		require.NoError(t, err)
		r, err := refresh.New(svc, refresh.WithWorkers(4))
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
				case !errors.Is(res.Err, budget.ErrClaimed) || res.Calls != 0:
					t.Errorf("%v: %v", res, res.Err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, done, len(jobs))
	for _, n := range done {
		assert.Equal(t, 1, n, "refreshes of an account in the round")
	}
	assert.EqualValues(t, len(jobs), writes[0].Writes()+writes[1].Writes(), "durable writes")
}
