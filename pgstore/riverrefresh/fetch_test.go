package riverrefresh_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
)

// offlineConfig is a Config of one bank, "testbank", on a pool that never
// connects (New does not connect).
func offlineConfig(t *testing.T) riverrefresh.Config {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), "host=/nonexistent-riverrefresh-test dbname=none")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	svc, err := accounts.New(testtpp.MockClient(t))
	require.NoError(t, err)
	return riverrefresh.Config{Pool: pool, Work: true,
		Banks: map[string]riverrefresh.Bank{"testbank": {Service: svc, Sessions: store.NewMemoryStore(), Workers: 1}}}
}

// The fetch settings reach River's config of each bank's queue: the
// defaults tuned for short jobs when zero, the configured ones otherwise
// (a cooldown alone above the default poll raises the poll to it).
func TestFetchSettingsReachRiver(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		cooldown, poll         time.Duration
		wantCooldown, wantPoll time.Duration
	}{
		{"defaults", 0, 0, riverrefresh.DefaultFetchCooldown, riverrefresh.DefaultFetchPollInterval},
		{"River's defaults", 100 * time.Millisecond, time.Second, 100 * time.Millisecond, time.Second},
		{"least", time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond},
		{"cooldown alone", 500 * time.Millisecond, 0, 500 * time.Millisecond, 500 * time.Millisecond},
		{"poll alone", 0, time.Minute, riverrefresh.DefaultFetchCooldown, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := offlineConfig(t)
			cfg.FetchCooldown, cfg.FetchPollInterval = tc.cooldown, tc.poll
			e, err := riverrefresh.New(cfg)
			require.NoError(t, err)
			q, ok := e.QueueConfig("testbank")
			require.True(t, ok)
			assert.Equal(t, tc.wantCooldown, q.FetchCooldown)
			assert.Equal(t, tc.wantPoll, q.FetchPollInterval)
			assert.Equal(t, 1+riverrefresh.DefaultFetchAhead, q.MaxWorkers, "Workers and the default fetch-ahead")
		})
	}
	// The defaults are far below River's (100 ms and 1 s).
	assert.LessOrEqual(t, riverrefresh.DefaultFetchCooldown, 100*time.Millisecond/5)
	assert.Less(t, riverrefresh.DefaultFetchPollInterval, time.Second)
}

// Fetch settings out of their bounds are a *ConfigError (ErrInvalidConfig)
// naming the field, from New, before River sees them.
func TestFetchSettingsBounds(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cooldown, poll time.Duration
		field          string
	}{
		{"negative cooldown", -time.Millisecond, 0, "FetchCooldown"},
		{"cooldown below River's least", time.Microsecond, 0, "FetchCooldown"},
		{"cooldown above a second", 2 * time.Second, 0, "FetchCooldown"},
		{"negative poll", 0, -time.Second, "FetchPollInterval"},
		{"poll below the cooldown", 50 * time.Millisecond, 10 * time.Millisecond, "FetchPollInterval"},
		{"poll below the default cooldown", 0, 2 * time.Millisecond, "FetchPollInterval"},
		{"poll above a minute", 0, time.Hour, "FetchPollInterval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := offlineConfig(t)
			cfg.FetchCooldown, cfg.FetchPollInterval = tc.cooldown, tc.poll
			err := requireConfigError(t, cfg, tc.field)
			assert.Contains(t, err.Error(), "Config."+tc.field)
		})
	}
}

// A round over one worker slot completes, every account once, with the
// least fetch settings (each job's slot fetched again after 1 ms).
func TestFetchSettingsOneWorkerRound(t *testing.T) {
	w := newWorld(t, 6)
	res := &results{done: map[string]int{}}
	cfg := riverrefresh.Config{Work: true, Schedule: true, Handle: res.handle,
		FetchCooldown: riverrefresh.MinFetchCooldown, FetchPollInterval: riverrefresh.MinFetchCooldown}
	w.workers = 1
	e := w.engine(t, cfg)
	q, ok := e.QueueConfig("testbank")
	require.True(t, ok)
	require.Equal(t, riverrefresh.MinFetchCooldown, q.FetchCooldown)
	require.NoError(t, e.Migrate(t.Context()))
	start(t, e)
	require.Eventually(t, res.allDone(len(w.ids)), 60*time.Second, 50*time.Millisecond)
	res.mu.Lock()
	defer res.mu.Unlock()
	for id, n := range res.done {
		assert.Equal(t, 1, n, "refreshes of one account: %s", id[:4])
	}
	assert.Empty(t, res.other)
}

// FetchAhead reaches River as each bank's queue's worker limit, Workers +
// FetchAhead: the default when zero, the configured count otherwise, none
// when negative, and none when RescueAfter leaves a job no time to wait
// for a worker (equal to JobTimeout). More than MaxFetchAhead is a
// *ConfigError naming the field and its count.
func TestFetchAheadReachesRiver(t *testing.T) {
	for _, tc := range []struct {
		name            string
		ahead           int
		timeout, rescue time.Duration
		wantWorkerLimit int
	}{
		{"default", 0, 0, 0, 1 + riverrefresh.DefaultFetchAhead},
		{"two", 2, 0, 0, 3},
		{"most", riverrefresh.MaxFetchAhead, 0, 0, 1 + riverrefresh.MaxFetchAhead},
		{"none", -1, 0, 0, 1},
		{"no time to wait", 0, time.Minute, time.Minute, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := offlineConfig(t)
			cfg.FetchAhead, cfg.JobTimeout, cfg.RescueAfter = tc.ahead, tc.timeout, tc.rescue
			e, err := riverrefresh.New(cfg)
			require.NoError(t, err)
			q, ok := e.QueueConfig("testbank")
			require.True(t, ok)
			assert.Equal(t, tc.wantWorkerLimit, q.MaxWorkers)
		})
	}
	assert.GreaterOrEqual(t, riverrefresh.DefaultFetchAhead, 1)
	assert.LessOrEqual(t, riverrefresh.DefaultFetchAhead, riverrefresh.MaxFetchAhead)

	cfg := offlineConfig(t)
	cfg.FetchAhead = riverrefresh.MaxFetchAhead + 1
	err := requireConfigError(t, cfg, "FetchAhead")
	assert.Contains(t, err.Error(), "Config.FetchAhead 101")
}

// A refresh job River hands a bank's queue beyond its Workers waits in
// the engine for a worker and runs once one ends; one that waits longer
// than the engine allows (half the time between JobTimeout and
// RescueAfter), or whose context ends, is snoozed back to River (no
// attempt counted), never run. Other jobs pass.
func TestFetchAheadGate(t *testing.T) {
	cfg := offlineConfig(t) // Workers: 1
	cfg.JobTimeout, cfg.RescueAfter = time.Second, 3*time.Second
	e, err := riverrefresh.New(cfg)
	require.NoError(t, err)
	g, wait := e.Gate()
	require.Equal(t, time.Second, wait)
	ctx := t.Context()
	job := &rivertype.JobRow{Queue: "psd2_refresh_testbank", Kind: riverrefresh.Args{}.Kind()}
	running, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- g.Work(ctx, job, func(context.Context) error { close(running); <-release; return nil })
	}()
	<-running

	var ran atomic.Int64
	run := func(context.Context) error { ran.Add(1); return nil }
	var snoozed *rivertype.JobSnoozeError
	require.ErrorAs(t, g.Work(ctx, job, run), &snoozed, "waited past the engine's wait")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorAs(t, g.Work(ended, job, run), &snoozed, "its context ended")
	assert.Zero(t, ran.Load(), "no snoozed job ran")
	require.NoError(t, g.Work(ctx, &rivertype.JobRow{Queue: job.Queue, Kind: "psd2_refresh_schedule"}, run))
	assert.EqualValues(t, 1, ran.Load(), "another kind passes while the worker is busy")

	second := make(chan error, 1)
	go func() { second <- g.Work(ctx, job, run) }()
	close(release)
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	assert.EqualValues(t, 2, ran.Load(), "the job waiting ran once the worker ended")
}

// With jobs fetched ahead, an engine still runs at most Workers refresh
// jobs at once: 2 workers and 4 jobs ahead over a round, each job held a
// little so that they overlap; every account is refreshed once.
func TestFetchAheadRunsAtMostWorkers(t *testing.T) {
	w := newWorld(t, 8)
	w.workers = 2
	var mu sync.Mutex
	running, most := 0, 0
	res := &results{done: map[string]int{}}
	cfg := riverrefresh.Config{Work: true, Schedule: true, FetchAhead: 4,
		Prepare: func(context.Context, string, *refresh.Job) error {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			return nil
		},
		Handle: func(ctx context.Context, bank string, r refresh.Result) {
			mu.Lock()
			running--
			mu.Unlock()
			res.handle(ctx, bank, r)
		}}
	e := w.engine(t, cfg)
	q, ok := e.QueueConfig("testbank")
	require.True(t, ok)
	require.Equal(t, 6, q.MaxWorkers, "River hands the queue Workers + FetchAhead")
	require.NoError(t, e.Migrate(t.Context()))
	start(t, e)
	require.Eventually(t, res.allDone(len(w.ids)), time.Minute, 20*time.Millisecond)
	mu.Lock()
	assert.LessOrEqual(t, most, 2, "refresh jobs at once")
	assert.Positive(t, most)
	mu.Unlock()
	res.mu.Lock()
	defer res.mu.Unlock()
	for id, n := range res.done {
		assert.Equal(t, 1, n, "refreshes of one account: %s", id[:4])
	}
	assert.Empty(t, res.other)
}
