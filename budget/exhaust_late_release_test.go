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

// A call waiting to send a retry the budget reserved, while another call
// of the same account meets the bank's 429 ACCESS_EXCEEDED (the budget
// fills the ledger: spent), then gives up: the retry it never sent is
// given back on its own goroutine, after the fill. On the code before,
// that release took one of the calls the fill counted, Remaining said 1,
// and the next call went to a bank that had said the budget is spent.
func TestExhaustOutlivesLateRelease(t *testing.T) {
	t.Parallel()
	var balances atomic.Int64
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/balances") {
			http.NotFound(w, r)
			return
		}
		if balances.Add(1) == 1 {
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
			close(first)
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: 10 * time.Second}))
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
	require.Eventually(t, func() bool {
		a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
		return err == nil && a.Remaining == budget.DefaultLimit-2
	}, 4*time.Second, time.Millisecond)
	_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
	require.ErrorIs(t, err, client.ErrAccessExceeded)
	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	require.Equal(t, 0, a.Remaining, "the bank says spent")
	cancel()
	require.Error(t, <-done)
	time.Sleep(300 * time.Millisecond)
	a, err = budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Remaining, "a late release does not undo the bank's 'spent'")
	t.Logf("balances requests: %d", balances.Load())
}

// The last call of the window that never leaves the machine (the bank's
// host refuses the connection) is given back, however full the ledger
// its reservation made: only the bank's "spent" is kept against releases.
func TestLastCallNotSentIsGivenBack(t *testing.T) {
	t.Parallel()
	bal := testdata(t, "balances.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bal)
	}))
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(hc),
		client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	svc := newService(t, c)
	for range budget.DefaultLimit - 1 {
		_, err := svc.Balances(t.Context(), acc1, psuAbsent()...)
		require.NoError(t, err)
	}
	srv.Close() // the bank's host now refuses the connection
	_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
	require.ErrorIs(t, err, client.ErrNotSent)
	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "the call the bank never saw is not counted")
}
