package budget_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A reservation of balances and transactions is one write; the calls made
// with it write nothing more, and count as the reserved calls.
func TestReserveOneWriteForBothCalls(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	st := &writeCounter{Store: store.NewMemoryStore()}
	svc := newService(t, bank.client(t, client.WithStore(st)))
	ctx := t.Context()
	res, err := budgetOf(svc).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 1})
	require.NoError(t, err)
	_, err = svc.Balances(ctx, acc1, psuAbsent(res.Option())...)
	require.NoError(t, err)
	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent(res.Option())...)
	require.NoError(t, err)
	assert.EqualValues(t, 1, st.writes.Load(), "one write for the account's refresh")
	b, tx := res.Left()
	assert.Zero(t, b+tx)
	require.NoError(t, res.Release(ctx, false))
	assert.EqualValues(t, 1, st.writes.Load(), "nothing to give back: no write")
	for _, e := range []budget.Endpoint{budget.Balances, budget.Transactions} {
		a, err := budgetOf(svc).Remaining(ctx, acc1, e)
		require.NoError(t, err)
		assert.Equal(t, 3, a.Remaining, e)
	}
	// A call beyond the reservation counts with a write of its own.
	_, err = svc.Balances(ctx, acc1, psuAbsent(res.Option())...)
	require.NoError(t, err)
	assert.EqualValues(t, 2, st.writes.Load())
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 2, a.Remaining)
}

// Replicas on one store reserving at once never take more than the
// budget: all of a reservation or none.
func TestReserveNeverOverSpends(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	shared := store.NewMemoryStore()
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 12 {
		svc := newService(t, bank.client(t, client.WithStore(shared)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 1 + i%2}
			_, err := budgetOf(svc).Reserve(context.Background(), req)
			var be *budget.ExhaustedError
			switch {
			case err == nil:
				ok.Add(int64(req.Transactions))
			case assert.ErrorAs(t, err, &be):
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	svc := newService(t, bank.client(t, client.WithStore(shared)))
	a, err := budgetOf(svc).Remaining(t.Context(), acc1, budget.Transactions)
	require.NoError(t, err)
	assert.LessOrEqual(t, ok.Load(), int64(4), "transactions calls reserved")
	assert.Equal(t, 4-int(ok.Load()), a.Remaining)
	assert.Positive(t, refused.Load())
}

// A holder that crashes after reserving leaves its calls counted (they
// expire by the window rule); one that ends early gives back what it did
// not use, and its claim, in one write.
func TestReserveCrashAndRelease(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	shared := store.NewMemoryStore()
	ctx := t.Context()
	crashed := newService(t, bank.client(t, client.WithStore(shared)))
	_, err := budgetOf(crashed).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 1,
		Claim: "round-1/job-a", ClaimUntil: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	// The reservation is lost with its process. Another replica sees the
	// calls counted and the account claimed by another job.
	other := newService(t, bank.client(t, client.WithStore(shared)))
	a, err := budgetOf(other).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 3, a.Remaining)
	_, err = budgetOf(other).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "round-1/job-b",
		ClaimUntil: time.Now().Add(time.Hour)})
	var ce *budget.ClaimedError
	require.ErrorAs(t, err, &ce)
	assert.ErrorIs(t, err, budget.ErrClaimed)
	// The same job, retried elsewhere, may claim again; the dead
	// replica's calls stay counted.
	res, err := budgetOf(other).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 1,
		Claim: "round-1/job-a", ClaimUntil: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	a, err = budgetOf(other).Remaining(ctx, acc1, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 2, a.Remaining)
	// It uses balances only, then fails: the unused transactions call and
	// the claim are given back.
	_, err = other.Balances(ctx, acc1, psuAbsent(res.Option())...)
	require.NoError(t, err)
	require.NoError(t, res.Release(ctx, true))
	a, err = budgetOf(other).Remaining(ctx, acc1, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 3, a.Remaining)
	a, err = budgetOf(other).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 2, a.Remaining)
	_, err = budgetOf(other).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "round-1/job-b",
		ClaimUntil: time.Now().Add(time.Hour)})
	require.NoError(t, err, "the claim was given back")
	// A reservation beyond the budget takes nothing.
	_, err = budgetOf(other).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 4})
	var be *budget.ExhaustedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, budget.Transactions, be.Endpoint)
	a, err = budgetOf(other).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining)
}
