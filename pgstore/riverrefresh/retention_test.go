package riverrefresh_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// The retention periods reach River: the defaults chosen for rounds
// Spacing apart when zero (a completed job kept two rounds, at least a
// day for a cancelled one, a week for a discarded one), the configured
// ones otherwise; CleanupEvery likewise.
func TestRetentionSettingsReachRiver(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name                           string
		spacing                        time.Duration
		completed, cancelled, discared time.Duration
		cleanup                        time.Duration
		want                           [3]time.Duration
		wantCleanup                    time.Duration
	}{
		{"defaults", 0, 0, 0, 0, 0, [3]time.Duration{2 * refresh.DefaultSpacing, day, 7 * day}, time.Hour},
		{"defaults, daily rounds", day, 0, 0, 0, 0, [3]time.Duration{2 * day, 2 * day, 7 * day}, time.Hour},
		{"configured", 0, 7 * time.Hour, 36 * time.Hour, 10 * day, 5 * time.Minute,
			[3]time.Duration{7 * time.Hour, 36 * time.Hour, 10 * day}, 5 * time.Minute},
		{"bounds", 0, refresh.DefaultSpacing, riverrefresh.MaxJobRetentionPeriod, refresh.DefaultSpacing, riverrefresh.MaxCleanupEvery,
			[3]time.Duration{refresh.DefaultSpacing, riverrefresh.MaxJobRetentionPeriod, refresh.DefaultSpacing}, riverrefresh.MaxCleanupEvery},
		{"no cleanup", 0, 0, 0, 0, -1, [3]time.Duration{2 * refresh.DefaultSpacing, day, 7 * day}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := offlineConfig(t)
			cfg.Schedule = true
			cfg.Spacing = tc.spacing
			cfg.CompletedJobRetentionPeriod, cfg.CancelledJobRetentionPeriod, cfg.DiscardedJobRetentionPeriod = tc.completed, tc.cancelled, tc.discared
			cfg.CleanupEvery = tc.cleanup
			e, err := riverrefresh.New(cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.want, e.Retention())
			assert.Equal(t, tc.wantCleanup, e.CleanupEvery())
		})
	}
}

// Retention periods and CleanupEvery out of their bounds are a
// *ConfigError naming the field: a retention below Spacing would let a
// round's account be enqueued again within the round.
func TestRetentionSettingsBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*riverrefresh.Config)
		field string
	}{
		{"completed below Spacing", func(c *riverrefresh.Config) { c.CompletedJobRetentionPeriod = time.Hour }, "CompletedJobRetentionPeriod"},
		{"completed negative", func(c *riverrefresh.Config) { c.CompletedJobRetentionPeriod = -1 }, "CompletedJobRetentionPeriod"},
		{"completed above the most", func(c *riverrefresh.Config) {
			c.CompletedJobRetentionPeriod = riverrefresh.MaxJobRetentionPeriod + time.Second
		}, "CompletedJobRetentionPeriod"},
		{"cancelled below daily rounds", func(c *riverrefresh.Config) {
			c.Spacing, c.CancelledJobRetentionPeriod = 24*time.Hour, 23*time.Hour
		}, "CancelledJobRetentionPeriod"},
		{"discarded negative", func(c *riverrefresh.Config) { c.DiscardedJobRetentionPeriod = -time.Hour }, "DiscardedJobRetentionPeriod"},
		{"cleanup too often", func(c *riverrefresh.Config) { c.CleanupEvery = time.Second }, "CleanupEvery"},
		{"cleanup too rare", func(c *riverrefresh.Config) { c.CleanupEvery = 25 * time.Hour }, "CleanupEvery"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := offlineConfig(t)
			tc.set(&cfg)
			requireConfigError(t, cfg, tc.field)
		})
	}
}

// River's job cleaner, on the engine that is River's leader, deletes the
// finished jobs older than the configured retention of their state and
// keeps the younger ones: a completed job of 40 hours goes and one of 30
// stays under a retention of 36 hours (River's default, 24 hours, would
// take both), and so on for cancelled and discarded jobs.
func TestJobCleanerKeepsTheConfiguredRetention(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{Work: true, CompletedJobRetentionPeriod: 36 * time.Hour,
		CancelledJobRetentionPeriod: 48 * time.Hour, DiscardedJobRetentionPeriod: 10 * 24 * time.Hour})
	require.NoError(t, e.Migrate(ctx))
	jobs := pgx.Identifier{w.schema, "river_job"}.Sanitize()
	type aged struct {
		state string
		age   time.Duration
		gone  bool
	}
	cases := []aged{
		{"completed", 40 * time.Hour, true}, {"completed", 30 * time.Hour, false},
		{"cancelled", 50 * time.Hour, true}, {"cancelled", 40 * time.Hour, false},
		{"discarded", 11 * 24 * time.Hour, true}, {"discarded", 8 * 24 * time.Hour, false},
	}
	ids := make([]int64, len(cases))
	for i, c := range cases {
		// In a queue no engine works: the job waits until it is aged.
		res, err := e.Client().Insert(ctx, riverrefresh.Args{Bank: "testbank", Session: "user-a", Account: "a", Round: int64(i)},
			&river.InsertOpts{Queue: "retention_test"})
		require.NoError(t, err)
		ids[i] = res.Job.ID
		_, err = e.Pool().Exec(ctx, `UPDATE `+jobs+` SET state = $2, finalized_at = now() - make_interval(secs => $3)
			WHERE id = $1`, res.Job.ID, c.state, c.age.Seconds())
		require.NoError(t, err)
	}
	exists := func(id int64) bool {
		var n int
		require.NoError(t, e.Pool().QueryRow(ctx, `SELECT count(*) FROM `+jobs+` WHERE id = $1`, id).Scan(&n))
		return n == 1
	}
	start(t, e) // River's leader: its cleaner runs at once, then every 30 s
	require.Eventually(t, func() bool {
		for i, c := range cases {
			if c.gone && exists(ids[i]) {
				return false
			}
		}
		return true
	}, time.Minute, 100*time.Millisecond, "the jobs older than their retention are deleted")
	for i, c := range cases {
		assert.Equal(t, !c.gone, exists(ids[i]), "%s job of %v", c.state, c.age)
	}
}

// A round's job that ended cancelled (the PSU must consent again) is
// not enqueued again in its round: a job is unique per account and round
// whatever its end. Before, every scheduling of the round (every
// ScheduleEvery) enqueued the account again, a job and a row each time.
func TestCancelledJobNotEnqueuedAgainInItsRound(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{})
	require.NoError(t, e.Migrate(ctx))
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Equal(t, len(w.ids), n)
	jobs := pgx.Identifier{w.schema, "river_job"}.Sanitize()
	tag, err := e.Pool().Exec(ctx, `UPDATE `+jobs+` SET state = 'cancelled', finalized_at = now() WHERE kind = 'psd2_refresh'`)
	require.NoError(t, err)
	require.EqualValues(t, len(w.ids), tag.RowsAffected())
	n, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Zero(t, n, "no account enqueued again in its round")
	w.clock.Add(refresh.DefaultSpacing) // the next round
	n, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Equal(t, len(w.ids), n, "the next round enqueues every account")
}

// clockedWorld is a world whose stores judge expiry by the world's clock
// (pgstore.WithClock), the clock of the clients and the emulator.
func clockedWorld(t *testing.T, customers int) *world {
	t.Helper()
	w := newWorld(t, customers)
	w.storeOpts = []pgstore.Option{pgstore.WithClock(w.clock.Now)}
	w.store = newStore(t, newPool(t), w.schema, w.storeOpts...)
	return w
}

// kvRows counts the rows of the world's kv table whose key starts with
// prefix, expired ones included.
func kvRows(t *testing.T, w *world, prefix string) int {
	t.Helper()
	var n int
	require.NoError(t, newPool(t).QueryRow(t.Context(), `SELECT count(*) FROM `+pgx.Identifier{w.schema, "kv"}.Sanitize()+
		` WHERE starts_with(key, $1)`, prefix).Scan(&n))
	return n
}

// The scheduler sweeps the expired values of the banks' stores (its
// periodic cleanup job, run at its start and every CleanupEvery): a
// value whose ttl ended is deleted, a live one stays.
func TestSchedulerSweepsExpiredValues(t *testing.T) {
	w := clockedWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{Schedule: true})
	require.NoError(t, e.Migrate(ctx))
	require.NoError(t, w.store.Put(ctx, "test/sweep/old", []byte("o"), time.Hour))
	require.NoError(t, w.store.Put(ctx, "test/sweep/live", []byte("l"), 3*time.Hour))
	w.clock.Add(2 * time.Hour)
	require.Equal(t, 2, kvRows(t, w, "test/sweep/"))
	start(t, e)
	require.Eventually(t, func() bool { return kvRows(t, w, "test/sweep/old") == 0 },
		time.Minute, 100*time.Millisecond, "the expired value is swept")
	assert.Equal(t, 1, kvRows(t, w, "test/sweep/live"), "the live value stays")
	require.Eventually(t, func() bool {
		var done int
		require.NoError(t, e.Pool().QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{w.schema, "river_job"}.Sanitize()+
			` WHERE kind = $1 AND state = 'completed'`, riverrefresh.CleanupArgs{}.Kind()).Scan(&done))
		return done == 1
	}, time.Minute, 100*time.Millisecond, "by the cleanup job, completed")
}

// A budget's count is never swept before its window (and the clock
// margin) has ended: one second before, the account's calls are all
// still counted after a cleanup and another call is refused; one second
// after, the cleanup deletes the account's row and its calls are
// allowed again.
func TestCleanupNeverLosesABudgetCount(t *testing.T) {
	w := clockedWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{})
	b := budget.Of(w.svc(t).Client())
	acct := w.ids[0]
	_, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: acct, Balances: budget.DefaultLimit, Transactions: 1})
	require.NoError(t, err)
	require.Equal(t, 1, kvRows(t, w, "accounts/budget/"))
	span := budget.DefaultWindow + budget.ClockMargin

	w.clock.Add(span - time.Second)
	_, err = e.Cleanup(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, kvRows(t, w, "accounts/budget/"), "the row is kept")
	a, err := b.Remaining(ctx, acct, budget.Balances)
	require.NoError(t, err)
	assert.Zero(t, a.Remaining, "every call still counted")
	_, err = b.Reserve(ctx, budget.ReserveRequest{AccountID: acct, Balances: 1})
	var ex *budget.ExhaustedError
	require.ErrorAs(t, err, &ex, "a call more is refused")

	w.clock.Add(2 * time.Second)
	n, err := e.Cleanup(ctx)
	require.NoError(t, err)
	assert.Positive(t, n)
	assert.Zero(t, kvRows(t, w, "accounts/budget/"), "the row is swept once its window ended")
	a, err = b.Remaining(ctx, acct, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining)
}
