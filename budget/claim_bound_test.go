package budget_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// TestReserveClaimBounded: a claim that would hold the account longer
// than budget.MaxClaim (a ClaimUntil ten years ahead, a caller's mistake
// or a computed spacing gone wrong) is refused with a *ClaimTooLongError
// before anything is written: no call is taken and the account is not
// claimed. Before, it was written, and every other holder was refused the
// account for ten years. A claim of MaxClaim is taken.
func TestReserveClaimBounded(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	shared := store.NewMemoryStore()
	svc := newService(t, bank.client(t, client.WithStore(shared)))
	ctx := t.Context()
	_, err := budgetOf(svc).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "round-1/job-a",
		ClaimUntil: time.Now().AddDate(10, 0, 0)})
	require.Error(t, err)
	var tl *budget.ClaimTooLongError
	require.ErrorAs(t, err, &tl)
	assert.ErrorIs(t, err, budget.ErrClaimTooLong)
	assert.Equal(t, budget.MaxClaim, tl.Max)
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 4, a.Remaining, "nothing taken")

	other := newService(t, bank.client(t, client.WithStore(shared)))
	res, err := budgetOf(other).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "round-1/job-b",
		ClaimUntil: time.Now().Add(time.Hour)})
	require.NoError(t, err, "the account was not claimed")
	require.NoError(t, res.Release(ctx, true))

	_, err = budgetOf(svc).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "round-1/job-c",
		ClaimUntil: time.Now().Add(budget.MaxClaim - time.Minute)})
	require.NoError(t, err, "a claim within MaxClaim")
}
