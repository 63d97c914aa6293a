package budget_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/store"
)

// exceededBank answers balances calls with the platform's document, or,
// while refuse is set, with 429 ACCESS_EXCEEDED and the Retry-After
// retryAfter (none when empty); it counts the requests it receives.
type exceededBank struct {
	srv        *httptest.Server
	calls      atomic.Int64
	refuse     atomic.Bool
	retryAfter string
}

func newExceededBank(t *testing.T, retryAfter string) *exceededBank {
	t.Helper()
	b := &exceededBank{retryAfter: retryAfter}
	bal := testdata(t, "balances.json")
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if b.refuse.Load() {
			if b.retryAfter != "" {
				w.Header().Set("Retry-After", b.retryAfter)
			}
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`))
			return
		}
		_, _ = w.Write(bal)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// replica is an accounts.Service of a client on st whose clock is
// *clock plus skew: one replica of a TPP sharing the store.
func (b *exceededBank) replica(t *testing.T, st store.Store, clock *atomic.Int64, skew time.Duration) *accounts.Service {
	t.Helper()
	c, err := client.New(b.srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"),
		client.WithHTTPClient(b.srv.Client()), client.WithRetryPolicy(client.RetryPolicy{}), client.WithStore(st),
		client.WithClock(func() time.Time { return time.Unix(0, clock.Load()).Add(skew) }))
	require.NoError(t, err)
	return newService(t, c)
}

// A 429 ACCESS_EXCEEDED whose Retry-After is longer than the bank's pause
// takes (more than a minute, less than the window) says that the bank
// refuses the account's calls until then. The ledger learns it: no
// replica on the store, the one that met the answer included, sends the
// account's balances call again before the Retry-After and the clock
// margin have passed, and the next call goes out after that.
func TestAccessExceededRetryAfterStopsEveryReplica(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"120", "3600", "43200"} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			t.Parallel()
			bank := newExceededBank(t, retryAfter)
			wait, err := time.ParseDuration(retryAfter + "s")
			require.NoError(t, err)
			var clock atomic.Int64
			start := time.Now()
			clock.Store(start.UnixNano())
			shared := store.NewMemoryStore()
			a, b := bank.replica(t, shared, &clock, 0), bank.replica(t, shared, &clock, 0)
			ctx := t.Context()

			bank.refuse.Store(true)
			_, err = a.Balances(ctx, acc1, psuAbsent()...)
			require.ErrorIs(t, err, client.ErrAccessExceeded)
			bank.refuse.Store(false)
			require.NoError(t, budgetOf(a).Flush(ctx))

			for _, r := range []*accounts.Service{a, b} {
				_, err = r.Balances(ctx, acc1, psuAbsent()...)
				require.ErrorIs(t, err, budget.ErrExhausted, "right after the bank's refusal")
			}
			clock.Store(start.Add(wait + budget.ClockMargin - time.Second).UnixNano())
			_, err = b.Balances(ctx, acc1, psuAbsent()...)
			require.ErrorIs(t, err, budget.ErrExhausted, "just before the Retry-After and the margin")
			var ee *budget.ExhaustedError
			require.ErrorAs(t, err, &ee)
			assert.True(t, ee.RetryAt.Equal(start.Add(wait+budget.ClockMargin)), "RetryAt %v", ee.RetryAt.Sub(start))
			assert.Equal(t, int64(1), bank.calls.Load(), "the bank received only the refused call")

			clock.Store(start.Add(wait + budget.ClockMargin).UnixNano())
			_, err = b.Balances(ctx, acc1, psuAbsent()...)
			require.NoError(t, err, "allowed again once the Retry-After and the margin have passed")
			assert.Equal(t, int64(2), bank.calls.Load())
		})
	}
}

// The time a 429 ACCESS_EXCEEDED's Retry-After gives is kept with the
// clock margin on the strict side: a replica whose clock runs ahead of
// the one that met the answer, by less than budget.ClockMargin, sends no
// call before the bank's Retry-After has passed on the bank's clock.
func TestAccessExceededRetryAfterKeepsTheClockMargin(t *testing.T) {
	t.Parallel()
	ahead := budget.ClockMargin - time.Minute
	for _, retryAfter := range []string{"", "600", "86400"} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			t.Parallel()
			bank := newExceededBank(t, retryAfter)
			wait := budget.DefaultWindow // the bank's count, without a Retry-After
			if retryAfter != "" {
				var err error
				wait, err = time.ParseDuration(retryAfter + "s")
				require.NoError(t, err)
			}
			var clock atomic.Int64 // the bank's clock, and the first replica's
			start := time.Now()
			clock.Store(start.UnixNano())
			shared := store.NewMemoryStore()
			met, fast := bank.replica(t, shared, &clock, 0), bank.replica(t, shared, &clock, ahead)
			ctx := t.Context()

			bank.refuse.Store(true)
			_, err := met.Balances(ctx, acc1, psuAbsent()...)
			require.ErrorIs(t, err, client.ErrAccessExceeded)
			bank.refuse.Store(false)
			require.NoError(t, budgetOf(met).Flush(ctx))

			// A second before the bank allows calls again, on its clock.
			clock.Store(start.Add(wait - time.Second).UnixNano())
			_, err = fast.Balances(ctx, acc1, psuAbsent()...)
			require.ErrorIs(t, err, budget.ErrExhausted, "a replica %v ahead, before the bank's Retry-After", ahead)
			assert.Equal(t, int64(1), bank.calls.Load(), "the bank received only the refused call")
		})
	}
}

// Two replicas, each with its own store.FileStore on one directory (two
// processes of one machine), 16 goroutines each, call the same account's
// balances at once without the PSU: the bank receives exactly the 4 calls
// of its budget, and every other call is refused before it is sent.
func TestFileStoreReplicasNeverSpendMoreThanTheBudget(t *testing.T) {
	t.Parallel()
	bank := newExceededBank(t, "")
	dir := filepath.Join(t.TempDir(), "store")
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	var replicas []*accounts.Service
	for range 2 {
		fs, err := store.NewFileStore(dir)
		require.NoError(t, err)
		replicas = append(replicas, bank.replica(t, fs, &clock, 0))
	}
	ctx := t.Context()
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for _, r := range replicas {
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := r.Balances(ctx, acc1, psuAbsent()...)
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, budget.ErrExhausted):
					refused.Add(1)
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	assert.Equal(t, int64(budget.DefaultLimit), ok.Load())
	assert.Equal(t, int64(32-budget.DefaultLimit), refused.Load())
	assert.Equal(t, int64(budget.DefaultLimit), bank.calls.Load())
}
