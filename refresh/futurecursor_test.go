package refresh_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
)

// A Cursor whose RefreshedAt lies in the future (a replica whose clock
// jumped ahead, a cursor restored from a bad backup) must not put the
// account off beyond one spacing: the package doc ("Spreading the day's
// calls", the 4 calls a day of docs/interface.md section 8) puts a job
// off by the spacing, and Result.RetryAt is "when the
// budget (or the spacing) allows the next call". The budget's ledger and
// claim still guard the spend, so a cursor later than now (beyond
// budget.ClockMargin) is not a last refresh. Before the fix, the job
// ended BudgetExhausted/Deferred with RetryAt = RefreshedAt + spacing,
// ten years away, run after run: the account was never refreshed again.
func TestFutureCursorDoesNotDeferForever(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	jobs := jobsOf(t, b)
	now := b.clock.Now()
	for i := range jobs {
		jobs[i].Cursor.RefreshedAt = now.AddDate(10, 0, 0)
	}
	for _, res := range collect(t, r, jobs) {
		if res.Outcome == refresh.BudgetExhausted {
			assert.False(t, res.RetryAt.After(now.Add(refresh.DefaultSpacing+budget.ClockMargin)),
				"RetryAt %v is beyond one spacing from now %v", res.RetryAt, now)
			continue
		}
		require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
		assert.False(t, res.Cursor.RefreshedAt.After(now.Add(budget.ClockMargin)))
	}
}
