package refresh_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
)

// While the bank's circuit breaker is open a job sends nothing and
// spends nothing, and its result says when to come back: the breaker's
// next probe (RetryAt), not "some time" (zero), so that a round defers
// the account to when the bank may answer instead of trying it again at
// once. Another account's job, of another bank, is not affected.
func TestBreakerOpenJobSaysWhenTheBankMayAnswer(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		if down.Load() {
			bankError(w, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
			return true
		}
		return false
	}}
	clock := testtpp.NewClock(time.Now())
	svc := stubService(t, bank, client.WithClock(clock.Now))
	r, err := refresh.New(svc, refresh.WithSpacing(0), refresh.WithMaxWait(0))
	require.NoError(t, err)
	for i := range client.DefaultBreakerPolicy().Consecutive {
		res := r.Refresh(t.Context(), newJob(t, newSession(time.Now()), fmt.Sprintf("acct-open-%d", i), false))
		require.Equal(t, refresh.Transient, res.Outcome, "call %d: %v", i, res.Err)
	}
	require.Equal(t, client.BreakerOpen, svc.Client().BankHealth().State)
	sent := bank.calls.Load()

	job := newJob(t, newSession(time.Now()), "acct-1", false)
	res := r.Refresh(t.Context(), job)
	assert.Equal(t, refresh.Transient, res.Outcome)
	assert.ErrorIs(t, res.Err, client.ErrBankUnavailable)
	assert.Zero(t, res.Calls)
	assert.Equal(t, sent, bank.calls.Load(), "nothing sent")
	assert.Zero(t, spent(t, svc, job.AccountID(), false), "nothing spent")
	probeAt := clock.Now().Add(client.DefaultBreakerPolicy().ProbeAfter)
	assert.WithinDuration(t, probeAt, res.RetryAt, time.Second, "back at the breaker's next probe")

	// Another bank is not affected.
	other := stubService(t, &stubBank{})
	ro, err := refresh.New(other, refresh.WithSpacing(0))
	require.NoError(t, err)
	res = ro.Refresh(t.Context(), job)
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)

	// At the probe, with the bank back, the job is done.
	down.Store(false)
	clock.Set(probeAt)
	res = r.Refresh(t.Context(), job)
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}

// A job put off because the bank's circuit breaker is open, or because
// the bank asked to slow down (its 429 with Retry-After, and then its
// pause outlasting WithMaxWait), is a snoozed round, as a job engine
// snoozes it and as the otel module's RoundSnoozed ("bank busy") says,
// not a failed one: a round of an outage is not reported as that many
// failures. A job the bank failed (a 503 it answered) is a failed round.
func TestDeferredRoundsAreSnoozedNotFailed(t *testing.T) {
	t.Parallel()
	var mode atomic.Value
	mode.Store("down")
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		switch mode.Load() {
		case "down":
			bankError(w, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "")
			return true
		case "slow down":
			w.Header().Set("Retry-After", "30")
			bankError(w, http.StatusTooManyRequests, "SERVICE_BLOCKED", "")
			return true
		}
		return false
	}}
	clock := testtpp.NewClock(time.Now())
	svc := stubService(t, bank, client.WithClock(clock.Now))
	var classes []string
	var mu sync.Mutex
	r, err := refresh.New(svc, refresh.WithSpacing(0), refresh.WithMaxWait(0),
		refresh.WithRounds(func(_ context.Context, r refresh.Round) {
			mu.Lock()
			defer mu.Unlock()
			classes = append(classes, r.Class())
		}))
	require.NoError(t, err)
	n := client.DefaultBreakerPolicy().Consecutive
	for i := range n {
		res := r.Refresh(t.Context(), newJob(t, newSession(time.Now()), fmt.Sprintf("acct-%d", i), false))
		require.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
	}
	require.Equal(t, client.BreakerOpen, svc.Client().BankHealth().State)
	res := r.Refresh(t.Context(), newJob(t, newSession(time.Now()), "acct-open", false))
	require.ErrorIs(t, res.Err, client.ErrBankUnavailable)

	// The bank is back, and asks to slow down: its pause puts the next
	// job off.
	clock.Add(client.DefaultBreakerPolicy().ProbeAfter)
	mode.Store("slow down")
	res = r.Refresh(t.Context(), newJob(t, newSession(time.Now()), "acct-limited", false))
	require.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
	res = r.Refresh(t.Context(), newJob(t, newSession(time.Now()), "acct-paused", false))
	require.ErrorIs(t, res.Err, refresh.ErrPaused)
	require.Zero(t, res.Calls)

	mu.Lock()
	defer mu.Unlock()
	want := make([]string, n, n+3)
	for i := range want {
		want[i] = "failed" // the bank's 503s
	}
	want = append(want, "snoozed", "snoozed", "snoozed")
	assert.Equal(t, want, classes, "breaker open, the bank's 429 with Retry-After, its pause: snoozed")
}
