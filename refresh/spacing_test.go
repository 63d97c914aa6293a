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

// Rounds DefaultSpacing apart, none forced, all succeed, day after day:
// the spacing is the time a call counts against the budget (its window
// and clock margin) over its limit. A forced round between the 4th and
// the 5th is refused before sending, and its RetryAt is when the 5th is
// due.
func TestRunSpacedRoundsFitTheBudget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, budget.DefaultWindow+budget.ClockMargin, budget.DefaultLimit*refresh.DefaultSpacing)
	b := newBank(t, refreshbench.Seed(1, 1, 0, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	jobs := jobsOf(t, b)
	start := b.clock.Now()
	for round := range 2 * budget.DefaultLimit {
		b.clock.Set(start.Add(time.Duration(round) * refresh.DefaultSpacing))
		for i, res := range collect(t, r, jobs) {
			require.Equal(t, refresh.Done, res.Outcome, "round %d at +%v: %v", round+1, b.clock.Now().Sub(start), res.Err)
			assert.Equal(t, 2, res.Calls, "round %d", round+1)
			jobs[i].Cursor = res.Cursor
		}
		if round != budget.DefaultLimit-1 {
			continue
		}
		// Between the 4th and the 5th, forced: the budget refuses it.
		b.clock.Add(refresh.DefaultSpacing - time.Second)
		forced := append([]refresh.Job(nil), jobs...)
		for i := range forced {
			forced[i].Force = true
		}
		for _, res := range collect(t, r, forced) {
			require.Equal(t, refresh.BudgetExhausted, res.Outcome)
			assert.False(t, res.Deferred)
			assert.Zero(t, res.Calls, "refused before sending")
			assert.WithinDuration(t, start.Add(budget.DefaultLimit*refresh.DefaultSpacing), res.RetryAt, 0, "when the 5th round is due")
		}
	}
}
