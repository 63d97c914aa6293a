package refresh_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
)

// TestLongSpacingClaimsWithinTheBound: a spacing longer than
// budget.MaxClaim (a monthly refresh) claims the account for MaxClaim,
// not for the spacing, which the budget refuses: the job runs.
func TestLongSpacingClaimsWithinTheBound(t *testing.T) {
	f := newSynced(t, refresh.WithSpacing(30*24*time.Hour))
	f.link(t)
	res := f.r.Refresh(t.Context(), newJob(t, f.w.Session, f.id(), false))
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}
