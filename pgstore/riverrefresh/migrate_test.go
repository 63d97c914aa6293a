package riverrefresh_test

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// migrateRounds is how many times TestConcurrentMigrate migrates a fresh
// schema from 8 replicas at once: RIVERREFRESH_MIGRATE_ROUNDS, else 8
// (River v0.51.2 without the lock failed every round).
func migrateRounds() int {
	if n, err := strconv.Atoi(os.Getenv("RIVERREFRESH_MIGRATE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 8
}

// River's migration is safe when every replica runs it at start: 8
// engines, each on its own pool, call Migrate at once on a fresh schema,
// round after round, and every call succeeds, leaving River's tables at
// River's latest version. Before Engine.Migrate took an advisory lock,
// River's migrator raced itself (8 replicas at once failed 14 of 48
// rounds with River v0.30.2).
func TestConcurrentMigrate(t *testing.T) {
	const replicas = 8
	w := newWorld(t, 1)
	svc := w.svc(t)
	pools := make([]*pgxpool.Pool, replicas)
	for i := range pools {
		pools[i] = pgtest.Pool(t, 3)
	}
	rounds := migrateRounds()
	failed := 0
	for r := range rounds {
		schema := pgtest.CreateSchema(t)
		engines := make([]*riverrefresh.Engine, replicas)
		for i := range engines {
			e, err := riverrefresh.New(riverrefresh.Config{Pool: pools[i], Schema: schema, Work: true,
				Banks: map[string]riverrefresh.Bank{"testbank": {Service: svc, Sessions: w.store}}})
			require.NoError(t, err)
			engines[i] = e
		}
		errs := make([]error, replicas)
		var wg sync.WaitGroup
		for i, e := range engines {
			wg.Go(func() { errs[i] = e.Migrate(t.Context()) })
		}
		wg.Wait()
		bad := 0
		for i, err := range errs {
			if err != nil {
				bad++
				t.Logf("round %d, replica %d: %v", r, i, err)
			}
		}
		if bad > 0 {
			failed++
			continue
		}
		// Every version River knows is applied, once.
		var versions, distinct int
		require.NoError(t, pools[0].QueryRow(t.Context(), fmt.Sprintf(
			`SELECT count(*), count(DISTINCT version) FROM %q.river_migration WHERE line = 'main'`, schema)).Scan(&versions, &distinct))
		assert.Equal(t, versions, distinct, "round %d: a version applied twice", r)
		assert.GreaterOrEqual(t, versions, 6, "round %d: River's tables", r)
	}
	t.Logf("%d rounds of %d replicas migrating at once: %d failed", rounds, replicas, failed)
	assert.Zero(t, failed, "rounds with a failed Migrate")
}

// A schema a newer River migrated (a version this River does not know
// on its main line) is refused by Migrate, with the versions in words,
// and left as it was: this River's client may not read or write what the
// newer one left. River's migrator alone finds nothing to apply and
// returns no error.
func TestMigrateRefusesANewerRiverSchema(t *testing.T) {
	w := newWorld(t, 1)
	pool := pgtest.Pool(t, 2)
	e, err := riverrefresh.New(riverrefresh.Config{Pool: pool, Schema: w.schema, Work: true,
		Banks: map[string]riverrefresh.Bank{"testbank": {Service: w.svc(t), Sessions: w.store}}})
	require.NoError(t, err)
	require.NoError(t, e.Migrate(t.Context()))
	table := fmt.Sprintf("%q.river_migration", w.schema)
	_, err = pool.Exec(t.Context(), `INSERT INTO `+table+` (line, version) VALUES ('main', 999)`)
	require.NoError(t, err)
	var before int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM `+table).Scan(&before))

	err = e.Migrate(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "version 999")
	assert.Contains(t, err.Error(), "newer")
	var after int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM `+table).Scan(&after))
	assert.Equal(t, before, after, "nothing applied or removed")
}
