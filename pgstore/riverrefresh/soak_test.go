package riverrefresh_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/store"
)

// The soak's size: PSD2_SOAK_CUSTOMERS customers (3 accounts each: 2
// accounts and a card account) over PSD2_SOAK_ROUNDS rounds, with
// PSD2_SOAK_WORKERS worker slots. A plain test run soaks 4 customers
// over 6 rounds; the figures of the README come from
//
//	PSD2_SOAK_CUSTOMERS=700 PSD2_SOAK_ROUNDS=30 PSD2_SOAK_WORKERS=16 \
//	  go test -run TestSoakTablesStayFlat -v -timeout 1h ./riverrefresh
const (
	envSoakCustomers = "PSD2_SOAK_CUSTOMERS"
	envSoakRounds    = "PSD2_SOAK_ROUNDS"
	envSoakWorkers   = "PSD2_SOAK_WORKERS"
)

// soakDay is the simulated time between two rounds of the soak: a day,
// so that each account makes one call of each endpoint a day, well in
// its budget (4 a day). A round every Spacing (6 hours) would meet the
// budget's window of 24 hours and 5 minutes at the fifth round and
// snooze the jobs for real minutes.
const soakDay = 24 * time.Hour

func envInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}

// soakCursors keeps each account's cursor in the shared store, as a TPP
// does (one row per account, overwritten each round), and counts the
// round's done results; a transient one is retried by River.
type soakCursors struct {
	st   store.Store
	mu   sync.Mutex
	done map[string]int
	fail []refresh.Result
}

func cursorKeyOf(j *refresh.Job) string { return "soak/cursor/" + budget.Key(j.AccountID(), j.Card()) }

func (c *soakCursors) prepare(ctx context.Context, _ string, j *refresh.Job) error {
	raw, err := c.st.Get(ctx, cursorKeyOf(j))
	if errors.Is(err, store.ErrNotStored) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, &j.Cursor)
}

func (c *soakCursors) handle(ctx context.Context, _ string, res refresh.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if res.Outcome == refresh.Transient {
		return // River runs the job again (a bank call timed out on a loaded machine)
	}
	if res.Outcome != refresh.Done {
		c.fail = append(c.fail, res)
		return
	}
	raw, err := json.Marshal(res.Cursor)
	if err == nil {
		err = c.st.Put(ctx, cursorKeyOf(&res.Job), raw, 0)
	}
	if err != nil {
		c.fail = append(c.fail, res)
		return
	}
	c.done[res.Job.AccountID()]++
}

// soakFigures are the tables after a round.
type soakFigures struct {
	kvRows, jobRows int
	// waiting are the schedule's periodic jobs that wait for an engine
	// with Schedule (this one works only): at most one per kind and bank.
	waiting           int
	kvBytes, jobBytes int64
}

// A soak of rounds a simulated day apart: the clients, the emulator and
// the store (pgstore.WithClock) run on the world's clock, moved a day
// after each round. River's job cleaner deletes on the wall clock, so
// the soak moves River's finished jobs a day back instead, and restarts
// the engine, whose River client, leader again, runs its job cleaner at
// once (as it does every 30 seconds of a long run); then it sweeps the
// store (Engine.Cleanup, the scheduler's hourly job). After each round
// it reports the round's time, the rows per account of the store's kv
// table and of River's job table, and their bytes on disk
// (pg_total_relation_size). It fails when the rows at a
// round's end are more than a budget row and a cursor per account (and a
// session per customer) in the store and the round's job in River's
// table, or when an account is not refreshed exactly once in a round.
func TestSoakTablesStayFlat(t *testing.T) {
	customers := envInt(t, envSoakCustomers, 4)
	rounds := envInt(t, envSoakRounds, 6)
	w := clockedWorld(t, customers)
	w.workers = envInt(t, envSoakWorkers, 4)
	ctx := t.Context()
	cur := &soakCursors{st: w.store, done: map[string]int{}}
	e := w.engine(t, riverrefresh.Config{Work: true, Prepare: cur.prepare, Handle: cur.handle})
	require.NoError(t, e.Migrate(ctx))
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Stop(stop)
	})
	accounts := len(w.ids)
	kv := pgx.Identifier{w.schema, "kv"}.Sanitize()
	jobs := pgx.Identifier{w.schema, "river_job"}.Sanitize()
	pool := newPool(t)
	measure := func() soakFigures {
		var f soakFigures
		require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+kv+`),
			(SELECT count(*) FROM `+jobs+` WHERE kind = 'psd2_refresh'), (SELECT count(*) FROM `+jobs+` WHERE kind <> 'psd2_refresh'),
			pg_total_relation_size($1), pg_total_relation_size($2)`, w.schema+".kv", w.schema+".river_job").
			Scan(&f.kvRows, &f.jobRows, &f.waiting, &f.kvBytes, &f.jobBytes))
		return f
	}
	completed := e.Retention()[0]
	t.Logf("soak: %d accounts (%d customers), %d rounds a simulated day apart, %d worker slots, completed jobs kept %v",
		accounts, customers, rounds, w.workers, completed)
	t.Logf("%5s %9s %10s %8s %12s %10s %12s", "round", "time", "kv rows/a", "kv B/a", "river rows/a", "river B/a", "swept before")
	var (
		figures []soakFigures
		swept   int64 // by the sweep after the round before
	)
	for r := 1; r <= rounds; r++ {
		cur.mu.Lock()
		clear(cur.done)
		cur.mu.Unlock()
		require.NoError(t, e.Start(ctx))
		began := time.Now()
		n, err := e.Enqueue(ctx, "testbank")
		require.NoError(t, err)
		require.Equal(t, accounts, n, "round %d: every account enqueued", r)
		require.Eventually(t, func() bool {
			cur.mu.Lock()
			defer cur.mu.Unlock()
			return len(cur.done) == accounts || len(cur.fail) > 0
		}, 10*time.Minute, 20*time.Millisecond, "round %d", r)
		took := time.Since(began)
		cur.mu.Lock()
		require.Empty(t, cur.fail, "round %d: results other than done", r)
		for id, k := range cur.done {
			require.Equal(t, 1, k, "round %d: refreshes of account %s", r, id[:4])
		}
		cur.mu.Unlock()
		stop, cancel := context.WithTimeout(ctx, time.Minute)
		require.NoError(t, e.Stop(stop)) // River records every completion
		cancel()
		// The tables at the round's end: its jobs, and whatever earlier
		// rounds left.
		f := measure()
		figures = append(figures, f)
		t.Logf("%5d %9s %10.2f %8d %12.2f %10d %12d", r, took.Round(time.Millisecond),
			float64(f.kvRows)/float64(accounts), f.kvBytes/int64(accounts),
			float64(f.jobRows)/float64(accounts), f.jobBytes/int64(accounts), swept)

		// A day passes: on the world's clock, and for River's finished
		// jobs; River's cleaner runs when the engine starts again.
		w.clock.Add(soakDay)
		_, err = pool.Exec(ctx, `UPDATE `+jobs+` SET finalized_at = finalized_at - make_interval(secs => $1),
			created_at = created_at - make_interval(secs => $1), scheduled_at = scheduled_at - make_interval(secs => $1)
			WHERE finalized_at IS NOT NULL`, soakDay.Seconds())
		require.NoError(t, err)
		swept, err = e.Cleanup(ctx)
		require.NoError(t, err)
		require.NoError(t, e.Start(ctx))
		require.Eventually(t, func() bool {
			var old int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+jobs+` WHERE state = 'completed'
				AND finalized_at < now() - make_interval(secs => $1)`, completed.Seconds()).Scan(&old))
			return old == 0
		}, time.Minute, 50*time.Millisecond, "round %d: River's cleaner deletes the jobs older than %v", r, completed)
		stop, cancel = context.WithTimeout(ctx, time.Minute)
		require.NoError(t, e.Stop(stop))
		cancel()
	}
	// Flat and bounded: at the end of every round, per account a budget
	// row and a cursor (and a session per customer) in the store, and
	// the round's job alone in River's table (a day old, the jobs of the
	// round before are past their retention).
	for i, f := range figures {
		assert.Equal(t, 2*accounts+customers, f.kvRows, "kv rows after round %d", i+1)
		assert.Equal(t, accounts, f.jobRows, "River's refresh jobs after round %d", i+1)
		assert.LessOrEqual(t, f.waiting, 2, "schedule and cleanup jobs waiting after round %d", i+1)
	}
}
