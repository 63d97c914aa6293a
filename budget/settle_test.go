package budget_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/store"
)

// unboundedWrites records the budget's writes made on a context without
// a deadline: writes that would wait for ever on a hung database.
type unboundedWrites struct {
	store.Store
	mu   sync.Mutex
	keys []string
}

func (u *unboundedWrites) note(ctx context.Context, key string) {
	if _, ok := ctx.Deadline(); !ok {
		u.mu.Lock()
		u.keys = append(u.keys, key[:strings.LastIndexByte(key, '/')+1])
		u.mu.Unlock()
	}
}

func (u *unboundedWrites) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	u.note(ctx, key)
	return u.Store.Update(ctx, key, fn)
}

func (u *unboundedWrites) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	u.note(ctx, key)
	return u.Store.Put(ctx, key, v, ttl)
}

func (u *unboundedWrites) unbounded() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.keys...)
}

// The budget's writes that settle a call or a job after it ended run
// even when the caller's context has ended, and wait at most SettleWait:
// a hung database never holds a call or a job for ever. On the code
// before, they ran on the caller's context without its end, and without
// its deadline too: the pause after a bank's 429, the calls given back
// after a call that was not sent, and Reservation.Release.
func TestSettlingWritesAreBounded(t *testing.T) {
	t.Parallel()
	// Every call has a deadline: a write without one lost it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := &unboundedWrites{Store: store.NewMemoryStore()}

	// A bank's 429 with Retry-After: the bank's pause is written.
	slow := newSlowBank(t, 30)
	svc := newService(t, slow.client(t, st))
	_, err := svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	paused, _, err := budgetOf(svc).PausedUntil(ctx)
	require.NoError(t, err)
	require.False(t, paused.IsZero(), "the 429 paused the bank")

	// A call that was not sent (the bank is gone): its call is given back.
	gone := newCountingBank(t)
	c := gone.client(t, client.WithStore(st))
	svc = newService(t, c)
	gone.srv.Close()
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, client.ErrNotSent)

	// A reservation given back after its job ended.
	up := newCountingBank(t)
	svc = newService(t, up.client(t, client.WithStore(st)))
	rsv, err := budgetOf(svc).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Transactions: 1, Claim: "job-1"})
	require.NoError(t, err)
	ended, end := context.WithTimeout(context.Background(), time.Minute)
	end()
	assert.NoError(t, rsv.Release(ended, true), "Release writes after the job's context ended")
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining, "the reserved call was given back")
	assert.Empty(t, st.unbounded(), "writes without a deadline")
}

// A call that may wait for the bank's pause (its reservation's MaxWait)
// but whose deadline comes first is refused at once with the pause, not
// after waiting out its deadline. On the code before, it waited until
// its deadline and ended with context.DeadlineExceeded, which says
// nothing of the pause.
func TestPausePastTheDeadlineRefusesAtOnce(t *testing.T) {
	t.Parallel()
	bank := newSlowBank(t, 0)
	svc := newService(t, bank.client(t, store.NewMemoryStore()))
	rsv, err := budgetOf(svc).Reserve(t.Context(), budget.ReserveRequest{AccountID: acc1, Balances: 1, MaxWait: time.Minute})
	require.NoError(t, err)
	bank.retryAfter.Store(20)
	_, err = svc.Balances(t.Context(), acc1, psuPresent()...)
	require.Error(t, err, "the bank's 429 pauses it for 20 s")
	bank.retryAfter.Store(0)
	var paused *budget.PausedError
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	require.ErrorAs(t, err, &paused, "refused with the pause")
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
}

// A hung database never holds a call without the PSU, nor a job's
// reservation or the budget's reads, even on a context without a
// deadline: each store call gives up after SettleWait (shorter here).
// The call is then refused before anything is sent, and the budget is not
// charged. On the code before, the reservation written before the call
// waited on the store for as long as the caller's context, which had no
// end: the call hung for ever, and so did Reserve and the reads.
func TestHungStoreHoldsNoCall(t *testing.T) {
	t.Parallel()
	hung := hungstore.New(t, []string{"Get", "Update", "Keys"}, "accounts/budget/", "budget/pause/")
	bank := newCountingBank(t)
	svc := newService(t, bank.client(t, client.WithStore(hung)))
	b := budgetOf(svc)
	budget.SetStoreWait(b, 100*time.Millisecond)
	ctx := context.Background() // no deadline: only the store's bound ends a hung call

	within := func(what string, f func() error) error { t.Helper(); return hungstore.Within(t, what, f) }

	err := within("a call without the PSU", func() error {
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		return err
	})
	require.ErrorIs(t, err, client.ErrNotSent)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the reservation was given up on")
	assert.Zero(t, bank.balances.Load(), "nothing was sent")

	err = within("Reserve", func() error {
		_, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, Claim: "job-1"})
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	err = within("Remaining", func() error {
		_, err := b.Remaining(ctx, acc1, budget.Balances)
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	err = within("Recorded", func() error {
		_, err := b.Recorded(ctx, acc2)
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	err = within("PausedUntil", func() error {
		_, _, err := b.PausedUntil(ctx)
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// The database answers again: nothing was charged, and calls go on.
	hung.Hung.Store(false)
	a, err := b.Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining, "the call given up on was not charged")
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	assert.EqualValues(t, 1, bank.balances.Load())
}
