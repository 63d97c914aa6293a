package riverrefresh_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// TestBreakerPausesTheQueue: a bank that answers 503 opens the client's
// circuit breaker; the engine pauses the bank's queue until the breaker's
// next probe, so no job calls the bank while it is open; when the bank is
// back the probe closes the breaker, the queue resumes and every account
// of the round is refreshed.
func TestBreakerPausesTheQueue(t *testing.T) {
	w := newWorld(t, 8)
	ctx := t.Context()
	res := &results{done: map[string]int{}}
	w.srv.Control().Outage(emulator.OutageUnavailable, time.Minute)
	e := w.engine(t, riverrefresh.Config{Work: true, Handle: res.handle})
	require.NoError(t, e.Migrate(ctx))
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	start(t, e)

	require.Eventually(t, func() bool {
		stats, err := e.QueueStats(ctx)
		return err == nil && !stats[0].PausedAt.IsZero()
	}, time.Minute, 20*time.Millisecond, "the breaker pauses the bank's queue")
	state, _, _, err := w.svc(t).Client().StoredBreaker(ctx)
	require.NoError(t, err)
	require.Equal(t, client.BreakerOpen, state)
	sent := w.requests()
	// The breaker opens after 5 requests in a row failed; the 3 workers
	// may have had one more each on the wire by then.
	assert.LessOrEqual(t, sent, client.DefaultBreakerPolicy().Consecutive+3, "requests to the down bank")
	time.Sleep(1500 * time.Millisecond) // the engine's resume loop looks every second
	assert.Equal(t, sent, w.requests(), "no job calls the bank while the breaker is open")

	// The bank is back and the probe is due: the queue resumes, the
	// probe closes the breaker, every account is refreshed once.
	w.clock.Add(2 * time.Minute)
	require.Eventually(t, res.allDone(len(w.ids)), time.Minute, 50*time.Millisecond, "every account refreshed once the bank is back")
	stats, err := e.QueueStats(ctx)
	require.NoError(t, err)
	assert.True(t, stats[0].PausedAt.IsZero(), "the queue runs again")
	res.mu.Lock()
	defer res.mu.Unlock()
	for id, n := range res.done {
		assert.Equal(t, 1, n, "refreshes of one account: %s", id[:4])
	}
}

// requests is the number of requests the bank received.
func (w *world) requests() int {
	w.bank.mu.Lock()
	defer w.bank.mu.Unlock()
	n := 0
	for _, c := range w.bank.n {
		n += c
	}
	return n
}

// breakerReads counts the reads of the stored breaker (client/breaker/)
// made through it.
type breakerReads struct {
	store.Store
	n atomic.Int64
}

func (r *breakerReads) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, "client/breaker/") {
		r.n.Add(1)
	}
	return r.Store.Get(ctx, key)
}

// TestDoneJobsReadTheBreakerOnceASecond: the check after a job that ended
// Done reads the bank's stored breaker at most once a second (the resume
// loop reads it once a second too), not once per job: on the code before,
// every job cost one more round trip to the database for it.
func TestDoneJobsReadTheBreakerOnceASecond(t *testing.T) {
	w := newWorld(t, 20)
	ctx := t.Context()
	res := &results{done: map[string]int{}}
	reads := &breakerReads{Store: w.store}
	e := w.engine(t, riverrefresh.Config{Work: true, Handle: res.handle}, client.WithStore(reads))
	require.NoError(t, e.Migrate(ctx))
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	began := time.Now()
	start(t, e)
	require.Eventually(t, res.allDone(len(w.ids)), time.Minute, 20*time.Millisecond, "every account refreshed")
	seconds := int64(time.Since(began)/time.Second) + 1
	res.mu.Lock()
	assert.Empty(t, res.other, "every job ended Done")
	res.mu.Unlock()
	// Per second: one read by the resume loop, one after a job.
	assert.LessOrEqual(t, reads.n.Load(), 2*seconds+2, "reads of the stored breaker for %d jobs in %d s", len(w.ids), seconds)
}
