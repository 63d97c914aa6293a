package refresh_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// hookLog is a delta hook that records what it is given and refuses the
// first failures calls.
type hookLog struct {
	mu       sync.Mutex
	failures int
	calls    int
	deltas   []*txsync.Delta
}

func (h *hookLog) hook(_ context.Context, d *txsync.Delta) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.failures > 0 {
		h.failures--
		return errors.New("the consumer's store is down")
	}
	h.deltas = append(h.deltas, d)
	return nil
}

// TestDeltaHookGetsEveryDelta: WithDeltaHook is given every job's delta,
// the empty one of a read with nothing new included, and is tried again
// when it fails; a hook that fails on each attempt ends the job with its
// error, the delta kept in Result.Sync.
func TestDeltaHookGetsEveryDelta(t *testing.T) {
	h := &hookLog{}
	f := newSynced(t, refresh.WithDeltaHook(h.hook))
	f.link(t)
	res := f.round(t)
	require.Len(t, h.deltas, 1)
	assert.Same(t, res.Sync, h.deltas[0])
	assert.Len(t, h.deltas[0].Added, 11)

	f.round(t)
	require.Len(t, h.deltas, 2, "an empty delta is given too")
	assert.True(t, h.deltas[1].Empty())

	// Fails twice, then takes it: one job, three calls, Done.
	h.failures = refresh.DeltaHookAttempts - 1
	f.add(t, emulator.SeedTransaction{BookingDate: f.w.Clock.Now(), Amount: "1200.00", CounterpartyName: "Kunde AS", Remittance: "Faktura 1"})
	calls := h.calls
	f.round(t)
	assert.Equal(t, refresh.DeltaHookAttempts, h.calls-calls)
	require.Len(t, h.deltas, 3)
	assert.Len(t, h.deltas[2].Added, 1)

	// Fails on every attempt: the job is not Done, and its result keeps
	// the delta for the caller to give again.
	h.failures = refresh.DeltaHookAttempts
	f.add(t, emulator.SeedTransaction{BookingDate: f.w.Clock.Now(), Amount: "800.00", CounterpartyName: "Kunde AS", Remittance: "Faktura 2"})
	f.w.Wait(12*time.Hour + 6*time.Minute)
	res = f.r.Refresh(t.Context(), jobWith(newJob(t, f.w.Session, f.id(), false), func(j *refresh.Job) { j.Want = refresh.Transactions; j.Cursor = f.cursor }))
	assert.Equal(t, refresh.Transient, res.Outcome)
	require.Error(t, res.Err)
	assert.ErrorContains(t, res.Err, "delta hook")
	require.NotNil(t, res.Sync)
	assert.Len(t, res.Sync.Added, 1)
	assert.Len(t, h.deltas, 3, "nothing taken")
}

// TestDeltaHookNeedsSync: the hook without a sync is refused at New.
func TestDeltaHookNeedsSync(t *testing.T) {
	t.Parallel()
	f := newSynced(t)
	_, err := refresh.New(f.w.Svc, refresh.WithDeltaHook(func(context.Context, *txsync.Delta) error { return nil }))
	assert.ErrorContains(t, err, "WithSync")
	_, err = refresh.New(f.w.Svc, refresh.WithDeltaHook(nil))
	assert.Error(t, err)
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	_, err = refresh.New(f.w.Svc, refresh.WithSync(s), refresh.WithDeltaHook(func(context.Context, *txsync.Delta) error { return nil }))
	assert.NoError(t, err)
}
