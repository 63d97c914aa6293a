package riverrefresh_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/store"
)

// slowStore is a store whose Delete and Update take delay more, as a
// busy database's would.
type slowStore struct {
	store.Store
	delay time.Duration
}

func (s slowStore) Delete(ctx context.Context, key string) error {
	time.Sleep(s.delay)
	return s.Store.Delete(ctx, key)
}

func (s slowStore) Update(ctx context.Context, key string,
	fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	time.Sleep(s.delay)
	return s.Store.Update(ctx, key, fn)
}

// Resuming a paused queue can't race a new pause. Two engines share a
// store whose Delete and Update take 50 ms: in each run the bank's pause
// has ended, and engine 1 resumes the queue while engine 2 records a new
// pause (a 429 with Retry-After), started 0 to 99 ms later. After both,
// the queue is never paused with no stored end (nothing would ever resume
// it), nor running while a stored pause lasts (the new pause lost).
// Before the resume was a compare-and-delete of the end it read (Get,
// QueueResume, then Delete), a pause recorded between the resume and the
// Delete lost its key and left the queue paused forever.
func TestResumeCannotRaceAPause(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	slow := slowStore{Store: w.store, delay: 50 * time.Millisecond}
	engines := make([]*riverrefresh.Engine, 2)
	for i := range engines {
		engines[i] = w.engineOn(t, riverrefresh.Config{Work: true}, slow)
	}
	require.NoError(t, engines[0].Migrate(ctx))
	// River's clients alone (not Engine.Start): no resume loop runs
	// besides the test's.
	for _, e := range engines {
		require.NoError(t, e.Client().Start(ctx))
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Client().Stop(stop)
		})
	}
	const queue, bank = "psd2_refresh_testbank", "testbank"
	key := riverrefresh.PauseKey(bank)
	require.Eventually(t, func() bool {
		_, err := engines[0].Client().QueueGet(ctx, queue)
		return err == nil
	}, time.Minute, 20*time.Millisecond, "River made the bank's queue")

	const runs = 100
	stuck, lost := 0, 0
	for i := range runs {
		// The pause that has ended: stored, the queue paused.
		require.NoError(t, w.store.Put(ctx, key, []byte(strconv.FormatInt(time.Now().Add(-time.Millisecond).UnixNano(), 10)), time.Hour))
		require.NoError(t, engines[0].Client().QueuePause(ctx, queue, nil))

		var wg sync.WaitGroup
		wg.Go(func() { engines[0].ResumeIfDue(ctx, bank) })
		wg.Go(func() {
			time.Sleep(time.Duration(i) * time.Millisecond)
			engines[1].Pause(ctx, bank, time.Now().Add(time.Hour))
		})
		wg.Wait()

		q, err := engines[0].Client().QueueGet(ctx, queue)
		require.NoError(t, err)
		raw, err := w.store.Get(ctx, key)
		stored := err == nil
		if err != nil {
			require.ErrorIs(t, err, store.ErrNotStored)
		}
		switch {
		case q.PausedAt != nil && !stored:
			stuck++
			t.Logf("run %d (pause after %d ms): the queue is paused with no stored end", i, i)
		case q.PausedAt == nil && stored:
			n, _ := strconv.ParseInt(string(raw), 10, 64)
			if time.Now().Before(time.Unix(0, n)) {
				lost++
				t.Logf("run %d (pause after %d ms): a pause is stored, the queue runs", i, i)
			}
		}
		require.NoError(t, w.store.Delete(ctx, key))
		require.NoError(t, engines[0].Client().QueueResume(ctx, queue, nil))
	}
	t.Logf("%d runs: %d queues left paused with nothing to resume them, %d pauses lost", runs, stuck, lost)
	assert.Zero(t, stuck, "queues left paused forever")
	assert.Zero(t, lost, "pauses lost")
}
