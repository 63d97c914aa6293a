package budget_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/store"
)

// TestPauseAcrossReplicaClocks: a replica whose clock differs from the
// writer's by less than ClockMargin holds the bank's pause until the
// bank's end, and no longer than the pause's own wait from the moment it
// learns of it. On the code before, the pause was one end on the
// writer's clock: a reader whose clock ran 4 minutes ahead of the
// writer's (the writer's behind) took a 30 s or a 1 s pause as over at
// once and called the bank during it, and one whose clock ran behind
// held a 30 s pause for 4.5 minutes.
func TestPauseAcrossReplicaClocks(t *testing.T) {
	t.Parallel()
	skew := budget.ClockMargin - time.Minute
	for _, tc := range []struct {
		skew       time.Duration // the writer's clock, off the reader's
		retryAfter int
	}{
		{-skew, 30},
		{skew, 30},
		{-skew, 1},
		{skew, 1},
		{0, 1},
	} {
		t.Run(fmt.Sprintf("writer%+v/%ds", tc.skew, tc.retryAfter), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			bank := newSlowBank(t, tc.retryAfter)
			shared := store.NewMemoryStore()
			w := bank.client(t, shared)
			budget.SetPauseClock(budget.Of(w), func() time.Time { return time.Now().Add(tc.skew) })
			svc, err := accounts.New(w)
			require.NoError(t, err)
			before := time.Now()
			_, err = svc.Balances(ctx, acc1, psuPresent()...) // the bank's 429: a pause
			require.Error(t, err)

			r := bank.client(t, shared) // another replica, on the system clock
			until, paused, err := budget.Of(r).PausedUntil(ctx)
			read := time.Now()
			require.NoError(t, err)
			wait := time.Duration(tc.retryAfter) * time.Second
			assert.True(t, paused, "the reader sees the pause")
			assert.False(t, until.Before(before.Add(wait)), "held until the bank's end: %v, want from %v", until, before.Add(wait))
			assert.False(t, until.After(read.Add(wait)), "at most the wait from when it learned of it: %v, want by %v", until, read.Add(wait))
		})
	}
}

// TestPauseMergedAcrossReplicaClocks: a shorter pause written over a
// longer one of a replica whose clock runs behind keeps the longer one
// for a third replica that reads the store after both.
func TestPauseMergedAcrossReplicaClocks(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 30)
	shared := store.NewMemoryStore()
	behind := bank.client(t, shared)
	budget.SetPauseClock(budget.Of(behind), func() time.Time { return time.Now().Add(-(budget.ClockMargin - time.Minute)) })
	svc, err := accounts.New(behind)
	require.NoError(t, err)
	before := time.Now()
	_, err = svc.Balances(ctx, acc1, psuPresent()...) // a pause of 30 s
	require.Error(t, err)

	bank.retryAfter.Store(1)
	other, err := accounts.New(bank.client(t, shared))
	require.NoError(t, err)
	_, err = other.Balances(ctx, acc1, psuPresent()...) // a pause of 1 s, written over it
	require.Error(t, err)

	until, paused, err := budget.Of(bank.client(t, shared)).PausedUntil(ctx)
	read := time.Now()
	require.NoError(t, err)
	assert.True(t, paused)
	assert.False(t, until.Before(before.Add(30*time.Second)), "the 30 s pause holds: %v", until)
	assert.False(t, until.After(read.Add(30*time.Second)), "at most its wait from the read: %v", until)
}
