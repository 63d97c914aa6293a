package riverrefresh_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// rawArgs are a refresh job's arguments as anything may have written
// them into River's table.
type rawArgs map[string]any

func (rawArgs) Kind() string { return riverrefresh.Args{}.Kind() }

// A job that can never succeed ends at its first attempt through River's
// JobCancel, with a "discarded" event, instead of River's 25 retries:
// arguments that do not decode, a session key the store refuses, a bank
// the engine does not have. Before, the first two were retried (an error
// River records and retries), and the third ended without an event.
func TestHopelessJobsEndAtOnce(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	var mu sync.Mutex
	events := map[int64]riverrefresh.Event{}
	e := w.engine(t, riverrefresh.Config{Work: true, Event: func(ev riverrefresh.Event) {
		mu.Lock()
		defer mu.Unlock()
		events[ev.JobID] = ev
	}})
	require.NoError(t, e.Migrate(ctx))
	queue := &river.InsertOpts{Queue: "psd2_refresh_testbank"}
	for _, tc := range []struct {
		name string
		args river.JobArgs
		bank string // the event's
	}{
		{"undecodable arguments", rawArgs{"bank": 42, "session": []int{1}, "round": "x"}, ""},
		{"arguments not an object", rawArgs(nil), ""},
		{"invalid session key", riverrefresh.Args{Bank: "testbank", Session: "../../etc/passwd", Account: "a", Round: 1}, "testbank"},
		{"unknown bank", riverrefresh.Args{Bank: "otherbank", Session: "user-a", Account: "a", Round: 1}, "otherbank"},
		{"unknown bank, not a bank name", riverrefresh.Args{Bank: "01017012345 Ola Nordmann", Session: "user-a", Account: "a", Round: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Client().Insert(ctx, tc.args, queue)
			require.NoError(t, err)
			id := res.Job.ID
			if tc.name == "arguments not an object" {
				// River writes an object; a row edited by hand need not be one.
				_, err := e.Pool().Exec(ctx, "UPDATE "+w.schema+".river_job SET args = '[1, 2]' WHERE id = $1", id)
				require.NoError(t, err)
			}
			start(t, e)
			require.Eventually(t, func() bool {
				j, err := e.Client().JobGet(ctx, id)
				return err == nil && j.FinalizedAt != nil
			}, time.Minute, 20*time.Millisecond, "the job ends")
			j, err := e.Client().JobGet(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, "cancelled", string(j.State))
			assert.Equal(t, 1, j.Attempt, "not retried")
			assert.Equal(t, 25, j.MaxAttempts, "River's default, untouched")
			require.Len(t, j.Errors, 1)
			assert.NotContains(t, j.Errors[0].Error, "01017012345")
			mu.Lock()
			ev, ok := events[id]
			mu.Unlock()
			require.True(t, ok, "an event")
			assert.Equal(t, riverrefresh.Event{Bank: tc.bank, Kind: "discarded", Outcome: refresh.Refused, JobID: id}, ev)
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, e.Stop(stop))
		})
	}
}

// A job whose stored session does not decode (not written by
// sca.SaveSession, or corrupted) ends at its first attempt through
// River's JobCancel with a "cancelled" event (the PSU must consent
// again), as one whose session is gone does. Before, the decoding error
// was retried as a store failure, up to River's 25 attempts.
func TestUndecodableSessionCancelsItsJob(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	var mu sync.Mutex
	events := map[int64]riverrefresh.Event{}
	e := w.engine(t, riverrefresh.Config{Work: true, Event: func(ev riverrefresh.Event) {
		mu.Lock()
		defer mu.Unlock()
		events[ev.JobID] = ev
	}})
	require.NoError(t, e.Migrate(ctx))
	// sca's key prefix for sessions, and a value that is no session.
	require.NoError(t, w.store.Put(ctx, "sca/session/user-broken", []byte("{"), 0))
	res, err := e.Client().Insert(ctx, riverrefresh.Args{Bank: "testbank", Session: "user-broken", Account: "a", Round: 1},
		&river.InsertOpts{Queue: "psd2_refresh_testbank"})
	require.NoError(t, err)
	id := res.Job.ID
	start(t, e)
	require.Eventually(t, func() bool {
		j, err := e.Client().JobGet(ctx, id)
		return err == nil && j.FinalizedAt != nil
	}, time.Minute, 20*time.Millisecond, "the job ends")
	j, err := e.Client().JobGet(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "cancelled", string(j.State))
	assert.Equal(t, 1, j.Attempt, "not retried")
	mu.Lock()
	ev, ok := events[id]
	mu.Unlock()
	require.True(t, ok, "an event")
	assert.Equal(t, riverrefresh.Event{Bank: "testbank", Kind: "cancelled", Outcome: refresh.ReconnectNeeded, JobID: id}, ev)
}

// rawJob is a job of kind with arguments as anything may have written
// them into River's table.
type rawJob struct {
	kind string
	args map[string]any
}

func (r rawJob) Kind() string                 { return r.kind }
func (r rawJob) MarshalJSON() ([]byte, error) { return json.Marshal(r.args) }

// A schedule or cleanup job that can never succeed ends at its first
// attempt through River's JobCancel instead of River's 25 retries over
// some three weeks: a schedule job of a bank the engine no longer has
// (removed from Config.Banks while its job waited), or one whose
// arguments do not decode. A cleanup job's arguments are not read: one
// whose arguments do not decode runs its sweep. River's record of the
// error does not repeat a bank "name" the engine never wrote.
//
// Before, each failed (an unknown bank, River's decoding error) and was
// retried, a retryable job at each attempt.
func TestHopelessScheduleJobsEndAtOnce(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	e := w.engine(t, riverrefresh.Config{Schedule: true})
	require.NoError(t, e.Migrate(ctx))
	queue := &river.InsertOpts{Queue: "psd2_refresh_schedule"}
	for _, tc := range []struct {
		name  string
		args  river.JobArgs
		state string
	}{
		{"bank removed", riverrefresh.ScheduleArgs{Bank: "otherbank"}, "cancelled"},
		{"bank not a bank name", riverrefresh.ScheduleArgs{Bank: "01017012345 Ola Nordmann"}, "cancelled"},
		{"schedule arguments undecodable", rawJob{riverrefresh.ScheduleArgs{}.Kind(), map[string]any{"bank": []int{1}}}, "cancelled"},
		{"cleanup arguments undecodable", rawJob{riverrefresh.CleanupArgs{}.Kind(), map[string]any{"x": 1}}, "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Client().Insert(ctx, tc.args, queue)
			require.NoError(t, err)
			id := res.Job.ID
			if tc.name == "cleanup arguments undecodable" {
				_, err := e.Pool().Exec(ctx, "UPDATE "+w.schema+".river_job SET args = '[1, 2]' WHERE id = $1", id)
				require.NoError(t, err)
			}
			start(t, e)
			require.Eventually(t, func() bool {
				j, err := e.Client().JobGet(ctx, id)
				return err == nil && (j.FinalizedAt != nil || len(j.Errors) > 0)
			}, time.Minute, 20*time.Millisecond, "the job ran")
			j, err := e.Client().JobGet(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tc.state, string(j.State))
			assert.Equal(t, 1, j.Attempt, "not retried")
			for _, je := range j.Errors {
				assert.NotContains(t, je.Error, "01017012345")
			}
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, e.Stop(stop))
		})
	}
}
