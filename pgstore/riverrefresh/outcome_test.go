package riverrefresh_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// state returns the River state of the job of an account (by its key).
func state(t *testing.T, e *riverrefresh.Engine, schema, account string) string {
	t.Helper()
	var st string
	err := e.Pool().QueryRow(t.Context(), "SELECT state FROM "+schema+".river_job WHERE args->>'account' = $1",
		account).Scan(&st)
	require.NoError(t, err)
	return st
}

// Each outcome lands in its River state: done completed, a revoked
// consent and an account the bank refuses cancelled at the first attempt
// (River's JobCancel, with a "cancelled" and a "discarded" event), a spent budget snoozed until the next call is allowed, a 429
// with Retry-After pauses the bank's queue (an event) until then.
func TestOutcomesMapOntoRiver(t *testing.T) {
	w := newWorld(t, 4)
	ctx := t.Context()
	var mu sync.Mutex
	var events []riverrefresh.Event
	got := map[string]refresh.Result{}
	cfg := riverrefresh.Config{Work: true,
		Handle: func(_ context.Context, _ string, res refresh.Result) {
			mu.Lock()
			defer mu.Unlock()
			got[res.Job.AccountID()] = res
		},
		Event: func(ev riverrefresh.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		}}
	// Without the client's retries, so that the 429 below ends its call.
	e := w.engine(t, cfg, client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, e.Migrate(ctx))
	svc := w.svc(t)

	cus := w.seeded.Customers
	w.srv.Control().RevokeConsent(cus[0].Number)
	revoked := cus[0].Accounts[0].ID
	spentID := cus[1].Accounts[0].ID
	_, err := budget.Of(svc.Client()).Reserve(ctx, budget.ReserveRequest{AccountID: spentID, Balances: 4, Transactions: 4})
	require.NoError(t, err)
	bogus, err := refreshbench.Remembered(t, cus[2]).WithAccounts([]string{"enc!!no-such-account"}, nil)
	require.NoError(t, err)
	require.NoError(t, sca.SaveSession(ctx, w.store, "user-bogus", bogus))
	_, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)

	start(t, e)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == len(w.ids)+1
	}, 60*time.Second, 50*time.Millisecond)

	assert.Equal(t, "cancelled", stateEventually(t, e, w.schema, budget.Key(revoked, false), "cancelled"))
	// Refused: ended for good at its first attempt (River's JobCancel),
	// not retried, not by lowering its MaxAttempts.
	bogusKey := budget.Key("enc!!no-such-account", false)
	assert.Equal(t, "cancelled", stateEventually(t, e, w.schema, bogusKey, "cancelled"))
	var attempt, maxAttempts int
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT attempt, max_attempts FROM "+w.schema+".river_job WHERE args->>'account' = $1",
		bogusKey).Scan(&attempt, &maxAttempts))
	assert.Equal(t, 1, attempt)
	assert.Equal(t, 25, maxAttempts, "River's default, untouched")
	assert.Equal(t, "scheduled", stateEventually(t, e, w.schema, budget.Key(spentID, false), "scheduled"))
	assert.Equal(t, "completed", stateEventually(t, e, w.schema, budget.Key(cus[3].Accounts[0].ID, false), "completed"))
	assert.Equal(t, refresh.BudgetExhausted, got[spentID].Outcome)
	var at time.Time
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT scheduled_at FROM "+w.schema+".river_job WHERE args->>'account' = $1",
		budget.Key(spentID, false)).Scan(&at))
	assert.WithinDuration(t, got[spentID].RetryAt, at, 5*time.Second, "snoozed until the next call is allowed")
	mu.Lock()
	kinds := map[string]int{}
	for _, ev := range events {
		kinds[ev.Kind]++
	}
	mu.Unlock()
	assert.Equal(t, map[string]int{"cancelled": len(cus[0].Accounts) + len(cus[0].CardAccounts), "discarded": 1}, kinds,
		"the revoked customer's accounts, the bogus one")

	// The bank's 429 with Retry-After pauses the queue, and it resumes.
	w.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: 2 * time.Second, Count: 3})
	w.clock.Add(refresh.DefaultSpacing)
	_, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		q, err := e.Client().QueueGet(ctx, "psd2_refresh_testbank")
		return err == nil && q.PausedAt != nil
	}, 30*time.Second, 20*time.Millisecond, "paused")
	require.Eventually(t, func() bool {
		q, err := e.Client().QueueGet(ctx, "psd2_refresh_testbank")
		return err == nil && q.PausedAt == nil
	}, 30*time.Second, 500*time.Millisecond, "resumed")
	mu.Lock()
	defer mu.Unlock()
	paused := 0
	for _, ev := range events {
		if ev.Kind == "paused" {
			paused++
			assert.False(t, ev.Until.IsZero())
		}
	}
	assert.Positive(t, paused)
}

// stateEventually waits for the job of account to reach want, and returns
// its last state. The minute only bounds a hang: River on a busy machine
// may take seconds.
func stateEventually(t *testing.T, e *riverrefresh.Engine, schema, account, want string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st := state(t, e, schema, account)
		if st == want || time.Now().After(deadline) {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
}
