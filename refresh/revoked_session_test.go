package refresh_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
)

// One consent covers all of a session's accounts: once the bank answered
// that it is revoked (403 CONSENT_UNKNOWN), the session's other accounts
// end ReconnectNeeded without a call, instead of each spending a call of
// its without-PSU budget (shared with any other PSU who sees the account)
// on the same refusal.
func TestRunStopsSessionAfterBankEndedConsent(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 3, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithWorkers(1))
	s := refreshbench.Remembered(t, b.seeded.Customers[0])
	b.srv.Control().RevokeConsent(b.seeded.Customers[0].Number)

	var jobs []refresh.Job
	for j := range refresh.JobsFrom(func(yield func(*sca.Session, error) bool) { yield(s, nil) }, nil, func(err error) { t.Fatal(err) }) {
		jobs = append(jobs, j)
	}
	require.Len(t, jobs, 3)
	calls := 0
	for _, res := range collect(t, r, jobs) {
		assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
		calls += res.Calls
	}
	assert.Equal(t, 1, calls, "only the first account's call learns the consent is gone")
	spent := 0
	for _, id := range s.AccountIDs {
		a, err := budget.Of(b.client).Remaining(t.Context(), id, budget.Balances)
		require.NoError(t, err)
		spent += a.Limit - a.Remaining
	}
	assert.Equal(t, 1, spent, "balances calls counted over the session's accounts")
}
