package pgstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// Prune deletes a large backlog of delivered events in bounded
// statements, like Store.Cleanup: no DELETE removes more than 1000 rows
// (a statement-level trigger records each one's count), so a
// statement_timeout or a deadline cancels one batch, not the whole
// prune, and every delivered event is gone at the end; pending events
// stay.
func TestOutboxPruneDeletesInBatches(t *testing.T) {
	schema := pgtest.Schema(t)
	st := newOutboxStore(t, schema)
	ctx := t.Context()
	pool := pgtest.Pool(t, 2)
	ob := fmt.Sprintf("%q.outbox", schema)
	const backlog = 2500
	_, err := pool.Exec(ctx, `INSERT INTO `+ob+` (id, kind, at, data, delivered_at)
		SELECT 'e' || g, 'k', now(), '\x00', now() - interval '1 hour' FROM generate_series(1, $1) g`, backlog)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO `+ob+` (id, kind, at, data) VALUES ('pending', 'k', now(), '\x00')`)
	require.NoError(t, err)
	log := fmt.Sprintf("%q.prune_log", schema)
	fn := fmt.Sprintf("%q.prune_log_fn", schema)
	for _, q := range []string{
		`CREATE TABLE ` + log + ` (n bigint)`,
		`CREATE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO ` + log + ` SELECT count(*) FROM gone; RETURN NULL; END $$`,
		`CREATE TRIGGER prune_log AFTER DELETE ON ` + ob + ` REFERENCING OLD TABLE AS gone
			FOR EACH STATEMENT EXECUTE FUNCTION ` + fn + `()`,
	} {
		_, err := pool.Exec(ctx, q)
		require.NoError(t, err, q)
	}

	n, err := st.Outbox().Prune(ctx, time.Minute)
	require.NoError(t, err)
	assert.EqualValues(t, backlog, n)
	var left, statements, most int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+ob).Scan(&left))
	assert.EqualValues(t, 1, left, "the pending event stays")
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), coalesce(max(n), 0) FROM `+log+` WHERE n > 0`).Scan(&statements, &most))
	assert.LessOrEqual(t, most, int64(1000), "rows deleted by one statement")
	assert.GreaterOrEqual(t, statements, int64(3), "statements that deleted rows")
}
