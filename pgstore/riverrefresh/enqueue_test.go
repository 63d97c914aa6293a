package riverrefresh_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// Enqueuing a round again (the scheduler does every ScheduleEvery) inserts
// nothing and leaves the round's jobs untouched: their rows are not
// rewritten (River's unique insert would rewrite each one to skip it, an
// update per account per ScheduleEvery); a job River cancelled holds its
// account's place in the round too (uniqueStates); and a new round is
// enqueued in full.
func TestEnqueueAgainLeavesTheRoundsJobs(t *testing.T) {
	w := newWorld(t, 6)
	e := w.engine(t, riverrefresh.Config{})
	ctx := t.Context()
	require.NoError(t, e.Migrate(ctx))
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Equal(t, len(w.ids), n)
	// xmin changes with every write of a row.
	versions := func() map[int64]string {
		rows, err := e.Pool().Query(ctx, "SELECT id, xmin::text FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh'")
		require.NoError(t, err)
		out := map[int64]string{}
		for rows.Next() {
			var id int64
			var x string
			require.NoError(t, rows.Scan(&id, &x))
			out[id] = x
		}
		require.NoError(t, rows.Err())
		return out
	}
	before := versions()
	require.Len(t, before, len(w.ids))
	n, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Zero(t, n, "jobs inserted again")
	assert.Equal(t, before, versions(), "the round's rows, rewritten")

	// A cancelled job holds its account's place in the round.
	var id int64
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT min(id) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh'").Scan(&id))
	_, err = e.Client().JobCancel(ctx, id)
	require.NoError(t, err)
	n, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Zero(t, n, "the cancelled job's account enqueued again")

	// The next round: every account again.
	w.clock.Add(refresh.DefaultSpacing)
	n, err = e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Equal(t, len(w.ids), n)
}
