package riverrefresh_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// A Config.Prepare that fails, as it does when the TPP's own database is
// slow, with an error naming the account and the PSU (the TPP's code:
// fmt.Errorf("cursor of %s: %w", id, err)) leaves neither in River's job
// records nor in River's log: the attempt fails, and is retried, with an
// error that says Prepare failed and names the error's type, not its
// text. Before, River stored the error's text verbatim in the job's
// errors and logged it.
func TestPrepareErrorKeepsPersonalDataOutOfRiver(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	var log lockedBuffer
	e := w.engine(t, riverrefresh.Config{Work: true, Logger: slog.New(slog.NewJSONHandler(&log, nil)),
		Prepare: func(_ context.Context, _ string, j *refresh.Job) error {
			return fmt.Errorf("reading the cursor of account %s of PSU %s: %w", j.AccountID(), nationalID, context.DeadlineExceeded)
		}})
	require.NoError(t, e.Migrate(ctx))
	_, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	start(t, e)
	key := budget.Key(w.seeded.Customers[0].Accounts[0].ID, false)
	require.Eventually(t, func() bool {
		var n int
		err := e.Pool().QueryRow(ctx, "SELECT coalesce(array_length(errors, 1), 0) FROM "+w.schema+
			".river_job WHERE args->>'account' = $1", key).Scan(&n)
		return err == nil && n > 0
	}, time.Minute, 20*time.Millisecond, "the attempt's failure is recorded")
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, e.Stop(stop))
	for _, secret := range append([]string{nationalID}, w.ids...) {
		var n int
		require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job r WHERE r::text LIKE '%'||$1||'%'",
			secret).Scan(&n))
		assert.Zero(t, n, "River's jobs hold %s", secret)
		assert.False(t, strings.Contains(log.String(), secret), "the log holds %s", secret)
	}
	var state string
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT state::text FROM "+w.schema+".river_job WHERE args->>'account' = $1",
		key).Scan(&state))
	assert.Contains(t, []string{"available", "retryable", "running"}, state, "the failed attempt is retried")
	var n int
	require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job j, unnest(j.errors) e "+
		`WHERE e->>'error' LIKE '%prepare%' AND e->>'error' LIKE '%deadline exceeded%' AND j.args->>'account' = $1`, key).Scan(&n))
	assert.Positive(t, n, "the job's error says Prepare failed, and that a deadline passed")
}
