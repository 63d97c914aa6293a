package budget_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// A 429 ACCESS_EXCEEDED whose Retry-After is the account's own wait
// (longer than a minute, shorter than the window) holds the endpoint for
// the calls a reservation took ahead as well: a second call made with the
// reservation's option is refused before it is sent until the Retry-After
// and the clock margin have passed, as a call without one is. The
// reserved call it did not use is still given back by Release, so that
// after the wait only the call made counts.
func TestAccessExceededRetryAfterHoldsTheReservationsCalls(t *testing.T) {
	t.Parallel()
	bank := newExceededBank(t, "600")
	var clock atomic.Int64
	start := time.Now()
	clock.Store(start.UnixNano())
	svc := bank.replica(t, store.NewMemoryStore(), &clock, 0)
	b := budgetOf(svc)
	ctx := t.Context()

	rsv, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 2})
	require.NoError(t, err)
	bank.refuse.Store(true)
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	require.ErrorIs(t, err, client.ErrAccessExceeded)
	bank.refuse.Store(false)

	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	require.ErrorIs(t, err, budget.ErrExhausted, "the reservation's call, within the bank's Retry-After")
	assert.Equal(t, int64(1), bank.calls.Load(), "the bank received only the refused call")

	require.NoError(t, rsv.Release(ctx, true))
	require.NoError(t, b.Flush(ctx))
	clock.Store(start.Add(10*time.Minute + budget.ClockMargin).UnixNano())
	a, err := b.Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining, "after the wait only the call made counts")
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(2), bank.calls.Load())
}

// A stored call time far ahead of the client's clock (a replica whose
// clock is years ahead, a garbled value) holds the account's endpoint no
// longer than a call made a window and the margin ahead would: the
// account is never parked for ever, and a write of the ledger (the other endpoint's call)
// does not carry the far time forward.
func TestLedgerCallTimeFarAheadParksNoAccount(t *testing.T) {
	t.Parallel()
	var clock atomic.Int64
	start := time.Now()
	clock.Store(start.UnixNano())
	bank := newExceededBank(t, "")
	st := store.NewMemoryStore()
	svc := bank.replica(t, st, &clock, 0)
	b := budgetOf(svc)
	ctx := t.Context()
	far := start.AddDate(100, 0, 0).UnixNano()
	key := "accounts/budget/" + svc.Client().Scope() + "/" + budget.Key(acc1, false)
	raw := fmt.Sprintf(`{"b":[%d,%d,%d,%d],"t":[%d]}`, far, far, far, far, far)
	require.NoError(t, st.Put(ctx, key, []byte(raw), 100*365*24*time.Hour))

	bound := start.Add(2 * (budget.DefaultWindow + budget.ClockMargin))
	a, err := b.Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Zero(t, a.Remaining)
	assert.False(t, a.NextAt.After(bound), "held until %v after now", a.NextAt.Sub(start))

	// A write of the ledger: the transactions endpoint's reservation.
	_, err = b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Transactions: 1})
	require.NoError(t, err)

	clock.Store(bound.UnixNano())
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err, "allowed again once two windows and margins have passed")
	assert.Equal(t, int64(1), bank.calls.Load())
}

// TestLedgerCallTimeFarAheadUnwrittenParksNoAccount: a ledger whose
// every call of an endpoint is far ahead, and which no write of the
// other endpoint pins, holds the endpoint no longer than two windows and
// margins either. On the code before, each refusal read the far times
// as a window and the margin ahead of its own clock and wrote nothing
// (a refusal costs no write), so the bound slid with the clock and the
// account stayed parked until the value expired (here, for a century).
func TestLedgerCallTimeFarAheadUnwrittenParksNoAccount(t *testing.T) {
	t.Parallel()
	var clock atomic.Int64
	start := time.Now()
	clock.Store(start.UnixNano())
	bank := newExceededBank(t, "")
	st := store.NewMemoryStore()
	svc := bank.replica(t, st, &clock, 0)
	ctx := t.Context()
	far := start.AddDate(100, 0, 0).UnixNano()
	key := "accounts/budget/" + svc.Client().Scope() + "/" + budget.Key(acc1, false)
	raw := fmt.Sprintf(`{"b":[%d,%d,%d,%d]}`, far, far, far, far)
	require.NoError(t, st.Put(ctx, key, []byte(raw), 100*365*24*time.Hour))

	_, err := svc.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted, "the far calls count")
	bound := start.Add(2 * (budget.DefaultWindow + budget.ClockMargin))
	clock.Store(bound.UnixNano())
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err, "allowed again once two windows and margins have passed")
	assert.Equal(t, int64(1), bank.calls.Load())
}
