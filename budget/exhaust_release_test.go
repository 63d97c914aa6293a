package budget_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestReleaseKeepsTheBanksAccessExceeded checks docs/interface.md
// section 8 as package budget applies it: when the bank answers 429
// ACCESS_EXCEEDED (without a Retry-After, or with one of a window or
// more) the account's budget "is taken as spent from then on". A refresh
// that reserved two transactions calls, met that answer on the first and
// then released its unused call (Reservation.Release) must still find
// the budget spent. On the code before, Release removed one of the calls
// the budget had added for the bank's refusal (they carry the same time,
// or the reservation's own calls were counted in the fill), so
// Remaining reported 1 call and the next call went to the bank, which
// refused it again.
func TestReleaseKeepsTheBanksAccessExceeded(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"", "86400"} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			var sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sent.Add(1)
				if retryAfter != "" {
					w.Header().Set("Retry-After", retryAfter)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`))
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"),
				client.WithHTTPClient(srv.Client()), client.WithRetryPolicy(client.RetryPolicy{}))
			require.NoError(t, err)
			svc := newService(t, c)
			b := budgetOf(svc)

			rsv, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Transactions: 2})
			require.NoError(t, err)
			_, err = svc.Transactions(ctx, acc1, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, psuAbsent(rsv.Option())...)
			require.ErrorIs(t, err, client.ErrAccessExceeded)
			require.Equal(t, int64(1), sent.Load())
			require.NoError(t, rsv.Release(ctx, true))

			a, err := b.Remaining(ctx, acc1, budget.Transactions)
			require.NoError(t, err)
			assert.Equal(t, 0, a.Remaining, "the bank said the budget is spent; releasing a reservation does not undo that")
			_, err = svc.Transactions(ctx, acc1, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, psuAbsent()...)
			assert.ErrorIs(t, err, budget.ErrExhausted, "refused before sending")
			assert.Equal(t, int64(1), sent.Load(), "no second call to a bank that said the budget is spent")
		})
	}
}
