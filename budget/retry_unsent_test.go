package budget_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// A retry the budget reserved (after a 429 with Retry-After) that is
// then never sent, because the bank's circuit breaker opened while the
// call waited the Retry-After, or because the caller gave up meanwhile,
// spends nothing: the account keeps the call, as for any call the
// breaker refuses. On the code before, the retry's reservation stayed
// counted: one request reached the bank and two of the account's 4
// calls were spent.
func TestBudgetRetryNotSentSpendsNothing(t *testing.T) {
	t.Parallel()
	for _, why := range []string{"breaker", "cancel"} {
		t.Run(why, func(t *testing.T) {
			t.Parallel()
			bal := testdata(t, "balances.json")
			var balances atomic.Int64
			first := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if !strings.HasSuffix(r.URL.Path, "/balances") {
					w.WriteHeader(http.StatusServiceUnavailable) // the bank goes down
					return
				}
				if balances.Add(1) == 1 {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
					close(first)
					return
				}
				_, _ = w.Write(bal)
			}))
			t.Cleanup(srv.Close)
			creds := testtpp.Credentials(t, "Accounts test TPP")
			h := client.NewHealth()
			c, err := client.New(srv.URL+"/api", creds, client.WithHTTPClient(srv.Client()), client.WithHealth(h),
				client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: 5 * time.Second}))
			require.NoError(t, err)
			other, err := client.New(srv.URL+"/api", creds, client.WithHTTPClient(srv.Client()), client.WithHealth(h),
				client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI(redirectURI)))
			require.NoError(t, err)
			svc := newService(t, c)

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := svc.Balances(ctx, acc1, psuAbsent()...)
				done <- err
			}()
			<-first
			// The retry is reserved; the call waits the Retry-After.
			require.Eventually(t, func() bool {
				a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
				return err == nil && a.Remaining == budget.DefaultLimit-2
			}, 900*time.Millisecond, time.Millisecond, "the retry's reservation")
			switch why {
			case "breaker":
				for range 5 {
					_, err := other.Do(t.Context(), client.Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
					require.Error(t, err)
				}
				require.Equal(t, client.BreakerOpen, c.BankHealth().State)
			case "cancel":
				cancel()
			}
			err = <-done
			require.Error(t, err)
			assert.NotErrorIs(t, err, client.ErrNotSent, "the first attempt was sent")
			assert.Equal(t, int64(1), balances.Load(), "the retry was not sent")
			// A caller that gave up is back at once: the give-back may
			// land after its return (on its own context and bound).
			assert.Eventually(t, func() bool {
				a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
				return err == nil && a.Remaining == budget.DefaultLimit-1
			}, 2*time.Second, time.Millisecond, "only the request sent counts")
		})
	}
}
