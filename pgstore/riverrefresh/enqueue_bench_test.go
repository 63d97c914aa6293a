package riverrefresh_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// BenchmarkEnqueue enqueues a round of 1,000, 10,000 and 100,000 accounts
// (two per stored session) with Engine.Enqueue: the scheduler's work, in
// batches of 500 jobs. Each iteration is a new round
// (the clock moves on by the spacing), so every job is inserted. It
// reports s/round and ns/job, and s/again: the same round enqueued a
// second time, every job skipped as already there. Run it with
//
//	go test -run '^$' -bench Enqueue -benchtime 1x
func BenchmarkEnqueue(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run("accounts="+strconv.Itoa(n), func(b *testing.B) {
			ctx := b.Context()
			clock := testtpp.NewClock(time.Now())
			srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(b)), emulator.WithClock(clock.Now),
				emulator.WithLimits(refreshbench.Limits))
			defer srv.Close()
			creds, err := srv.NewTPP("Enqueue TPP")
			require.NoError(b, err)
			schema := pgtest.CreateSchema(b)
			pool := newPool(b)
			st := newStore(b, pool, schema)
			saveSessions(b, st, n/2, clock.Now().Add(-time.Hour))
			cl, err := client.New(srv.URL, creds, client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
				client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(st))
			require.NoError(b, err)
			svc, err := accounts.New(cl)
			require.NoError(b, err)
			e, err := riverrefresh.New(riverrefresh.Config{Pool: pool, Schema: schema,
				Banks: map[string]riverrefresh.Bank{"bench": {Service: svc, Sessions: st}}})
			require.NoError(b, err)
			require.NoError(b, e.Migrate(ctx))
			var took, again time.Duration
			b.ResetTimer()
			for range b.N {
				clock.Add(refresh.DefaultSpacing)
				start := time.Now()
				k, err := e.Enqueue(ctx, "bench")
				took += time.Since(start)
				require.NoError(b, err)
				require.Equal(b, n, k)
				start = time.Now()
				k, err = e.Enqueue(ctx, "bench")
				again += time.Since(start)
				require.NoError(b, err)
				require.Zero(b, k)
			}
			b.ReportMetric(took.Seconds()/float64(b.N), "s/round")
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N*n), "ns/job")
			b.ReportMetric(again.Seconds()/float64(b.N), "s/again")
		})
	}
}

// saveSessions stores sessions user-0 ... user-(n-1), each remembering two
// accounts (made-up ids: Enqueue reads only the session), its consent
// given at at, with 16 writers at once.
func saveSessions(tb testing.TB, st store.Store, n int, at time.Time) {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i) // a UUID's form
				s := &sca.Session{PSUID: id, TPPSessionID: id, Context: client.Private, SCAAt: at}
				s, err := s.WithAccounts([]string{"acct-" + strconv.Itoa(2*i), "acct-" + strconv.Itoa(2*i+1)}, nil)
				if err == nil {
					err = sca.SaveSession(context.Background(), st, "user-"+strconv.Itoa(i), s)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}
