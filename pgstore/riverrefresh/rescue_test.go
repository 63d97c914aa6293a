package riverrefresh_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
)

// A job whose worker died after its calls is rescued by River and run
// again by another replica; the account's budget then counts both runs'
// calls: the dead replica's are not given back, so the bank is never
// called over its budget on the strength of a budget that forgot them.
func TestRescuedJobBudgetCountsBothRuns(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	var mu sync.Mutex
	var retried []refresh.Result
	e := w.engine(t, riverrefresh.Config{Work: true, RescueAfter: 2 * time.Second, JobTimeout: time.Second,
		Handle: func(_ context.Context, _ string, res refresh.Result) {
			mu.Lock()
			retried = append(retried, res)
			mu.Unlock()
		}})
	require.NoError(t, e.Migrate(ctx))
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)

	// The dead replica: it took the job (River's row says running, since
	// long before RescueAfter), ran the refresh step with the job's claim
	// and died before River recorded the result.
	var id int64
	var args riverrefresh.Args
	require.NoError(t, e.Pool().QueryRow(ctx, "UPDATE "+w.schema+".river_job SET state = 'running', attempt = 1, "+
		"attempted_at = now() - interval '1 minute', attempted_by = ARRAY['dead-replica'] "+
		"WHERE id = (SELECT min(id) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh' AND NOT (args ? 'card')) "+
		"RETURNING id, args->>'session', args->>'account'").Scan(&id, &args.Session, &args.Account))
	svc := w.svc(t)
	s, err := sca.LoadSession(ctx, w.store, args.Session)
	require.NoError(t, err)
	var accountID string
	for _, a := range s.AccountIDs {
		if budget.Key(a, false) == args.Account {
			accountID = a
		}
	}
	require.NotEmpty(t, accountID)
	before := remaining(t, svc, accountID)
	dead, err := refresh.New(svc, refresh.WithMaxWait(0))
	require.NoError(t, err)
	died := dead.Refresh(ctx, jobWithClaim(newJob(t, s, accountID, false), "river/"+strconv.FormatInt(id, 10)))
	require.Equal(t, refresh.Done, died.Outcome, "%v", died.Err)
	require.Positive(t, died.Calls)

	// The survivor rescues the job and runs it again.
	start(t, e)
	var attempt int
	require.Eventually(t, func() bool {
		var st string
		err := e.Pool().QueryRow(ctx, "SELECT state, attempt FROM "+w.schema+".river_job WHERE id = $1", id).Scan(&st, &attempt)
		return err == nil && st == "completed"
	}, 45*time.Second, 100*time.Millisecond)
	assert.Equal(t, 2, attempt, "the job ran again after the rescue")

	mu.Lock()
	defer mu.Unlock()
	retryCalls := 0
	for _, r := range retried {
		if r.Job.AccountID() == accountID {
			require.Equal(t, refresh.Done, r.Outcome, "%v", r.Err)
			retryCalls += r.Calls
		}
	}
	require.Positive(t, retryCalls, "the rescued run refreshed the account")
	after := remaining(t, svc, accountID)
	used := 0
	for i := range before {
		used += before[i] - after[i]
	}
	t.Logf("calls: dead replica %d, rescued run %d; budget used %d", died.Calls, retryCalls, used)
	assert.Equal(t, died.Calls+retryCalls, used, "the budget counts the dead replica's calls and the retry's")
}

// remaining is what the account's balances and transactions budgets
// still allow.
func remaining(t *testing.T, svc *accounts.Service, id string) [2]int {
	t.Helper()
	var out [2]int
	for i, ep := range []budget.Endpoint{budget.Balances, budget.Transactions} {
		a, err := budget.Of(svc.Client()).Remaining(t.Context(), id, ep)
		require.NoError(t, err)
		out[i] = a.Remaining
	}
	return out
}
