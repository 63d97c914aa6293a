package refresh_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
)

// The bank's 429 ACCESS_EXCEEDED with a Retry-After of two hours (a
// rate limit of the account, longer than the bank's pause takes) ends
// that account's refreshes until then on every replica on the store, and
// after a restart: another replica's refresher, made after the answer
// (a new client, a new Refresher), sends nothing for the account before
// the time the bank gave and reports when to come back, while another
// account of the same bank is refreshed.
func TestAccessExceededRetryAfterHoldsAccountAcrossReplicas(t *testing.T) {
	t.Parallel()
	var calls, limited atomic.Int64
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/acct-1/") {
			return false
		}
		calls.Add(1)
		if limited.Add(1) > 1 {
			return false
		}
		w.Header().Set("Retry-After", "7200")
		bankError(w, http.StatusTooManyRequests, "ACCESS_EXCEEDED", "")
		return true
	}}
	ts := httptest.NewServer(bank)
	t.Cleanup(ts.Close)
	shared := store.NewMemoryStore()
	creds := testtpp.Credentials(t, "Stub TPP")
	clock := testtpp.NewClock(time.Now())
	replica := func() *refresh.Refresher {
		c, err := client.New(ts.URL, creds, client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
			client.WithRetryPolicy(client.RetryPolicy{}), client.WithStore(shared), client.WithClock(clock.Now))
		require.NoError(t, err)
		svc, err := accounts.New(c)
		require.NoError(t, err)
		r, err := refresh.New(svc, refresh.WithMaxWait(0))
		require.NoError(t, err)
		return r
	}
	s := newSession(time.Now())
	s.AccountIDs = []string{"acct-1", "acct-2"}

	first := replica().Refresh(t.Context(), newJob(t, s, "acct-1", false))
	require.NotEqual(t, refresh.Done, first.Outcome, "%v", first.Err)
	require.Equal(t, int64(1), calls.Load())
	assert.WithinDuration(t, clock.Now().Add(2*time.Hour+budget.ClockMargin), first.RetryAt, time.Minute, "the bank's Retry-After and the clock margin")

	// Another replica, or this one after a restart, an hour later.
	clock.Add(time.Hour)
	other := replica()
	again := other.Refresh(t.Context(), newJob(t, s, "acct-1", false))
	assert.NotEqual(t, refresh.Done, again.Outcome)
	assert.Zero(t, again.Calls, "nothing sent for the account before the bank's Retry-After: %v", again.Err)
	assert.Equal(t, int64(1), calls.Load(), "the bank saw no request for the account")
	assert.False(t, again.RetryAt.Before(first.RetryAt.Add(-time.Second)),
		"comes back when the bank said (%v), not earlier (%v)", first.RetryAt, again.RetryAt)

	// Another account of the bank is not held.
	res := other.Refresh(t.Context(), newJob(t, s, "acct-2", false))
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)

	// From the bank's time on, the account is refreshed again.
	clock.Set(first.RetryAt.Add(time.Second))
	res = other.Refresh(t.Context(), newJob(t, s, "acct-1", false))
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}
