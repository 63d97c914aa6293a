package riverrefresh_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// retryAfter5xx adds a Retry-After to the bank's 503 answers.
type retryAfter5xx struct {
	next  http.RoundTripper
	value string
}

func (d *retryAfter5xx) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusServiceUnavailable {
		resp.Header.Set("Retry-After", d.value)
	}
	return resp, err
}

// A bank's 503 with a Retry-After of ten minutes fails the account's job
// (an attempt, with River's error), and River tries it again no sooner
// than the bank said: each try is one of the account's 4 calls a day,
// and one sooner would spend it on the same refusal. On the code before,
// the job came back after River's first backoff, a second or so, and
// spent a second call. Other accounts of the bank are refreshed.
func TestServiceUnavailableRetryAfterDefersTheRetry(t *testing.T) {
	w := newWorld(t, 2)
	ctx := t.Context()
	w.bank.next = &retryAfter5xx{next: w.bank.next, value: "600"}
	var mu sync.Mutex
	got := map[string][]refresh.Result{}
	cfg := riverrefresh.Config{Work: true, Handle: func(_ context.Context, _ string, res refresh.Result) {
		mu.Lock()
		defer mu.Unlock()
		got[res.Job.AccountID()] = append(got[res.Job.AccountID()], res)
	}}
	e := w.engine(t, cfg, client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, e.Migrate(ctx))
	failing := w.seeded.Customers[0].Accounts[0].ID
	w.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusServiceUnavailable, Count: 1,
		PathPrefix: "/v1/accounts/" + failing + "/balances"})
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	start(t, e)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, rs := range got {
			if rs[len(rs)-1].Outcome == refresh.Done {
				n++
			}
		}
		return len(got[failing]) > 0 && n == len(w.ids)-1
	}, time.Minute, 20*time.Millisecond, "the other accounts are refreshed")
	mu.Lock()
	first := got[failing][0]
	mu.Unlock()
	require.Equal(t, refresh.Transient, first.Outcome, "%v", first.Err)
	require.WithinDuration(t, w.clock.Now().Add(10*time.Minute), first.RetryAt, 5*time.Second)

	key := budget.Key(failing, false)
	var st string
	var at time.Time
	var attempt int
	require.Eventually(t, func() bool {
		err := e.Pool().QueryRow(ctx, "SELECT state, scheduled_at, attempt FROM "+w.schema+".river_job WHERE args->>'account' = $1",
			key).Scan(&st, &at, &attempt)
		return err == nil && st != "running"
	}, time.Minute, 20*time.Millisecond)
	if st != "completed" {
		// River's state lags the worker: give a retry River scheduled
		// at its first backoff the time to come back.
		time.Sleep(3 * time.Second)
		require.NoError(t, e.Pool().QueryRow(ctx, "SELECT state, scheduled_at, attempt FROM "+w.schema+".river_job WHERE args->>'account' = $1",
			key).Scan(&st, &at, &attempt))
	}
	assert.Equal(t, "retryable", st, "the attempt failed, to be tried again")
	assert.Equal(t, 1, attempt)
	assert.False(t, at.Before(time.Now().Add(9*time.Minute)), "tried again no sooner than the bank's Retry-After: at %v", time.Until(at))
	mu.Lock()
	assert.Len(t, got[failing], 1, "the account was tried once")
	mu.Unlock()
	a, err := budget.Of(w.svc(t).Client()).Remaining(ctx, failing, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining, "one balances call spent")
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.Stop(stop))
}
