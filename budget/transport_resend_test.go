package budget_test

import (
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

// A counted GET whose pooled connection breaks once the bank read it is
// a call the bank counted. net/http would send it again on a new
// connection by itself: a blind retry after a connection lost, which the
// budget never allows (the bank counts both, the ledger one). The
// transport's resend of a counted call is stopped: the bank sees one
// call, the ledger counts one, and the call ends with the lost
// connection for its scheduler to try later.
func TestBudgetNoTransportResendOfCountedGet(t *testing.T) {
	t.Parallel()
	var balances atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/balances") {
			_, _ = w.Write([]byte(`{}`)) // the warm-up: leaves a pooled connection
			return
		}
		if balances.Add(1) == 1 { // read, counted, and the connection breaks before the answer
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		_, _ = w.Write([]byte(`{"balances":[]}`))
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

	_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
	t.Logf("call: %v", err)
	a, rerr := budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, rerr)
	assert.EqualValues(t, 1, balances.Load(), "the bank saw the counted call once: no blind resend")
	assert.Equal(t, budget.DefaultLimit-int(balances.Load()), a.Remaining, "every request the bank saw is counted")
}
