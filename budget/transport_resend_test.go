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

// A GET that net/http sends a second time on its own (its pooled
// connection broke after the request was written: the bank may have
// counted it) is a request the bank may have counted. The budget gives
// back a reserved retry only when the client's Result.Attempts says it
// was never sent; when Attempts leaves the transport's own resend out,
// the budget gave back a call the bank counted, and the ledger held
// fewer calls than reached the bank (a fifth call a day could go out).
func TestBudgetCountsTransportResendOfGet(t *testing.T) {
	t.Parallel()
	var balances atomic.Int64
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/balances") {
			_, _ = w.Write([]byte(`{}`)) // the warm-up: leaves a pooled connection
			return
		}
		switch balances.Add(1) {
		case 1: // read, counted, and the connection breaks before the answer
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		default:
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
			close(first)
		}
	}))
	t.Cleanup(srv.Close)
	creds := testtpp.Credentials(t, "Accounts test TPP")
	c, err := client.New(srv.URL+"/api", creds, client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: 10 * time.Second}))
	require.NoError(t, err)
	warm, err := client.New(srv.URL+"/api", creds, client.WithHTTPClient(srv.Client()), client.WithDefaults(client.WithRedirectURI(redirectURI)))
	require.NoError(t, err)
	_, err = warm.Do(t.Context(), client.Operation{Method: http.MethodGet, Path: "/v1/warm"}, nil)
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
	}, 4*time.Second, time.Millisecond, "the retry's reservation")
	cancel() // the caller gives up during the Retry-After: the retry is never sent
	require.Error(t, <-done)
	require.EqualValues(t, 2, balances.Load(), "net/http sent the GET twice")

	// Give the release (on its own goroutine) its time, then check that
	// the ledger counts every request that reached the bank.
	time.Sleep(300 * time.Millisecond)
	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-int(balances.Load()), a.Remaining, "every request the bank saw stays counted")
}
