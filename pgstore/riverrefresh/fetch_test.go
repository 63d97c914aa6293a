package riverrefresh_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
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
			assert.Equal(t, 1, q.MaxWorkers)
		})
	}
	// The defaults are far below River's (100 ms and 1 s).
	assert.Less(t, riverrefresh.DefaultFetchCooldown, 100*time.Millisecond/10)
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
	require.Eventually(t, func() bool {
		res.mu.Lock()
		defer res.mu.Unlock()
		return len(res.done) == len(w.ids)
	}, 60*time.Second, 50*time.Millisecond)
	res.mu.Lock()
	defer res.mu.Unlock()
	for id, n := range res.done {
		assert.Equal(t, 1, n, "refreshes of one account: %s", id[:4])
	}
	assert.Empty(t, res.other)
}
