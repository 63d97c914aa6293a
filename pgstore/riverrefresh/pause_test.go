package riverrefresh_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/store"
)

// slowStore is a store whose Get, Put and Update take delay more, as a
// busy database's would.
type slowStore struct {
	store.Store
	delay time.Duration
}

func (s slowStore) Get(ctx context.Context, key string) ([]byte, error) {
	time.Sleep(s.delay)
	return s.Store.Get(ctx, key)
}

func (s slowStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	time.Sleep(s.delay)
	return s.Store.Put(ctx, key, v, ttl)
}

func (s slowStore) Update(ctx context.Context, key string,
	fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	time.Sleep(s.delay)
	return s.Store.Update(ctx, key, fn)
}

// sharedPause stands in for the budget's pause as the replicas of a shared
// store see it (budget.Budget.PausedUntil): the end of the latest pause,
// stored; each replica reads it from the store and keeps the latest end
// it read; a pause runs while now is before its end. The budget reads the
// store at most once a second; this one at every look, on a slow store,
// and on a clock the test moves, so that a run can end a pause at once.
type sharedPause struct {
	st  store.Store
	key string
	now atomic.Int64 // UnixNano
}

// record stores a new pause ending at until, as a 429 with Retry-After
// makes the budget do.
func (p *sharedPause) record(ctx context.Context, until time.Time) error {
	return p.st.Update(ctx, p.key, func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte(strconv.FormatInt(until.UnixNano(), 10)), time.Hour, nil
	})
}

// source is one replica's view of the pause.
func (p *sharedPause) source() func(context.Context) (time.Time, bool) {
	var latest atomic.Int64
	return func(ctx context.Context) (time.Time, bool) {
		if raw, err := p.st.Get(ctx, p.key); err == nil {
			if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				for cur := latest.Load(); n > cur && !latest.CompareAndSwap(cur, n); cur = latest.Load() {
				}
			}
		}
		n := latest.Load()
		if n == 0 {
			return time.Time{}, false
		}
		return time.Unix(0, n), p.now.Load() < n
	}
}

// Resuming a paused queue can't race a new pause. Two engines share a
// store whose reads and writes take 50 ms. In each run the bank's pause
// has ended, and engine 1 (which paused the queue) and engine 0 both
// look at it (each resumes the queue) while a 429 with Retry-After lands
// on engine 1, 0 to 99 ms later: the budget stores a new pause and engine
// 1 pauses the queue for it. Then:
//   - lost: after one more look of each engine, the queue must be paused
//     while the new pause runs;
//   - stuck: once the new pause has ended, engine 0 alone (engine 1 may
//     have died) must resume the queue; nothing else ever would.
//
// An engine that took the end it resumed after from a read made after its
// QueueResume (the 429's pause) left the queue stuck; one that did not
// pause the queue again after its resume, or at its next look, lost the
// pause.
func TestResumeCannotRaceAPause(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	const queue, bank = "psd2_refresh_testbank", "testbank"
	pause := &sharedPause{st: slowStore{Store: w.store, delay: 50 * time.Millisecond}, key: "test/pause/" + bank}
	engines := make([]*riverrefresh.Engine, 2)
	for i := range engines {
		engines[i] = w.engine(t, riverrefresh.Config{Work: true})
		engines[i].SetPauseSource(bank, pause.source())
	}
	require.NoError(t, engines[0].Migrate(ctx))
	// River's clients alone (not Engine.Start): no look at the pause runs
	// besides the test's.
	for _, e := range engines {
		require.NoError(t, e.Client().Start(ctx))
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Client().Stop(stop)
		})
	}
	require.Eventually(t, func() bool {
		_, err := engines[0].Client().QueueGet(ctx, queue)
		return err == nil
	}, time.Minute, 20*time.Millisecond, "River made the bank's queue")
	queuePaused := func() bool {
		q, err := engines[0].Client().QueueGet(ctx, queue)
		require.NoError(t, err)
		return q.PausedAt != nil
	}

	const runs = 100
	stuck, lost := 0, 0
	base := time.Now()
	for i := range runs {
		// Each run on a clock 3 hours after the last one's: its pauses
		// are new to both engines.
		now := base.Add(time.Duration(i) * 3 * time.Hour)
		first, second := now.Add(time.Hour), now.Add(2*time.Hour)
		// The first pause, running: engine 1 pauses the queue for it.
		pause.now.Store(now.UnixNano())
		require.NoError(t, pause.record(ctx, first))
		engines[1].ObservePause(ctx, bank)
		require.True(t, queuePaused(), "run %d: engine 1 paused the queue", i)
		// It ends: both engines look, and a 429 lands on engine 1.
		pause.now.Store(first.Add(time.Millisecond).UnixNano())
		var wg sync.WaitGroup
		wg.Go(func() { engines[0].ResumeIfDue(ctx, bank) })
		wg.Go(func() {
			time.Sleep(time.Duration(runs-1-i) * time.Millisecond)
			engines[1].ResumeIfDue(ctx, bank)
		})
		wg.Go(func() {
			time.Sleep(time.Duration(i) * time.Millisecond)
			if err := pause.record(ctx, second); err == nil {
				engines[1].ObservePause(ctx, bank)
			}
		})
		wg.Wait()

		for _, e := range engines {
			e.ResumeIfDue(ctx, bank)
		}
		if !queuePaused() {
			lost++
			t.Logf("run %d (429 after %d ms): the queue runs during the bank's pause", i, i)
		}
		// The second pause ends; engine 0 alone looks.
		pause.now.Store(second.Add(time.Millisecond).UnixNano())
		engines[0].ResumeIfDue(ctx, bank)
		if queuePaused() {
			stuck++
			t.Logf("run %d (429 after %d ms): the queue stays paused after the pause", i, i)
		}
		engines[1].ResumeIfDue(ctx, bank)
		require.NoError(t, engines[0].Client().QueueResume(ctx, queue, nil))
	}
	t.Logf("%d runs: %d queues left paused with nothing to resume them, %d pauses lost", runs, stuck, lost)
	assert.Zero(t, stuck, "queues left paused forever")
	assert.Zero(t, lost, "pauses lost")
}
