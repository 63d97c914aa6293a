package budget_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestBudgetNoBlindRetryAfterAnEarlier429 checks docs/interface.md
// section 8 as package budget applies it ("a counted call is never
// retried blindly: after a 5xx, a timeout or a connection lost once the
// request left, the client does not retry it"): a balances call without
// the PSU whose first attempt gets a 429 (retried, one more call
// reserved) and whose retry loses its connection after the request left
// must end there. On the code before, the Call handed to BeforeRetry kept
// the first answer's RetryStatus 429 (client.Client.send set it only when
// an answer arrived), so the budget took the lost connection for another
// 429 and retried blindly: a third request reached the bank and a third
// call of the 4 was spent.
func TestBudgetNoBlindRetryAfterAnEarlier429(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bal := testdata(t, "balances.json")
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1: // slow down; a fresh connection for the retry
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
		case 2: // the request was read; the answer is lost
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(bal)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second}))
	require.NoError(t, err)
	svc := newService(t, c)

	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.Error(t, err, "the call ends with the lost connection")
	assert.NotErrorIs(t, err, client.ErrNotSent)
	assert.Equal(t, int64(2), n.Load(), "the 429's retry, and no blind retry after the lost connection")
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-2, a.Remaining, "the first attempt and the 429's retry count, nothing more")
}
