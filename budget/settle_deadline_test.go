package budget_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
)

// A store that hangs on the writes that settle a call (here the bank's
// pause after its 429) never holds the caller past its deadline: the
// bank's answer comes back by then, the reservation already knows the
// call was sent, and the write goes on within its own bound. On the code
// before, the caller waited for the write, up to SettleWait (10 s) for
// each, whatever its deadline.
func TestSettleHoldsNoCallPastItsDeadline(t *testing.T) {
	t.Parallel()
	hung := hungstore.New(t, []string{"Update"}, "budget/pause/")
	bank := newSlowBank(t, 30)
	svc := newService(t, bank.client(t, hung))
	b := budgetOf(svc)
	budget.SetStoreWait(b, 3*time.Second)
	rsv, err := b.Reserve(t.Context(), budget.ReserveRequest{AccountID: acc1, Balances: 1})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	took := time.Since(start)
	require.Error(t, err, "the bank's 429")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the bank's answer, not the deadline")
	assert.Less(t, took, time.Second, "the caller's deadline (500 ms) bounds the call")
	assert.Equal(t, 1, rsv.Sent(), "the reservation knows the call was sent when the call returns")
	until, paused, _ := b.PausedUntil(t.Context())
	assert.True(t, paused && until.After(time.Now()), "the pause holds in this process at once")
}
