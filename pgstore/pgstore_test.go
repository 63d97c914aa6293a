package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/store/storetest"
)

// Two pools on one database and schema: two replicas.
func TestConformance(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	storetest.Run(t, func(t *testing.T) store.Store { return newStore(t, schema, 8) })
}

// Many replicas start at once and all run Migrate: one applies the
// migrations, none fails, and the schema ends at the newest version with
// each migration recorded once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	const replicas = 8
	stores := make([]*pgstore.Store, replicas)
	for i := range stores {
		var err error
		stores[i], err = pgstore.New(pgtest.Pool(t, 2), pgstore.WithSchema(schema))
		require.NoError(t, err)
	}
	v, err := stores[0].Version(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, v, "before Migrate")

	var wg sync.WaitGroup
	errs := make([]error, replicas)
	start := make(chan struct{})
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = st.Migrate(ctx)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "replica %d", i)
	}
	v, err = stores[3].Version(ctx)
	require.NoError(t, err)
	assert.Positive(t, v)

	var n, distinct int
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT count(*), count(DISTINCT version) FROM `+
		pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&n, &distinct))
	assert.Equal(t, v, n, "every migration recorded once")
	assert.Equal(t, n, distinct)

	// Once more: nothing to do.
	require.NoError(t, stores[5].Migrate(ctx))
	require.NoError(t, stores[5].Put(ctx, "k", []byte("v"), 0))
	got, err := stores[6].Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", string(got))
}

// A schema migrated by a newer release is left alone.
func TestMigrateRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 2)
	pool := pgtest.Pool(t, 1)
	_, err := pool.Exec(ctx, `INSERT INTO `+pgx.Identifier{schema, "schema_migrations"}.Sanitize()+
		` (version, name) VALUES (9999, '9999_future')`)
	require.NoError(t, err)
	err = st.Migrate(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "newer than this package")
}

// Expired rows are invisible at once and deleted by Cleanup (and by the
// background cleanup every 512 writes); live rows stay.
func TestCleanup(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 4)
	pool := pgtest.Pool(t, 1)
	rows := func() int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "kv"}.Sanitize()).Scan(&n))
		return n
	}
	for i := range 1500 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("sca/pending/%04d", i), []byte("p"), time.Millisecond))
	}
	require.NoError(t, st.Put(ctx, "sca/session/kept", []byte("s"), 0))
	require.NoError(t, st.Put(ctx, "accounts/budget/later", []byte("b"), time.Hour))
	time.Sleep(10 * time.Millisecond)
	for k, err := range st.Keys(ctx, "sca/pending/") {
		require.NoError(t, err)
		t.Errorf("expired key %q listed", k)
	}
	// The background cleanups started by the 1,500 writes may already
	// have deleted some; Cleanup deletes the rest, in batches of 1,000.
	st.Close() // waits for a running background cleanup
	n, err := st.Cleanup(ctx)
	require.NoError(t, err)
	assert.LessOrEqual(t, n, int64(1500))
	assert.Equal(t, 2, rows(), "only the live rows are left")
	n, err = st.Cleanup(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// The background cleanup runs on its own: after enough writes, expired
// rows vanish without anyone calling Cleanup.
func TestBackgroundCleanup(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 4)
	for i := range 100 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("old/%03d", i), []byte("o"), time.Millisecond))
	}
	time.Sleep(10 * time.Millisecond)
	for i := range 600 { // passes the 512th write
		require.NoError(t, st.Put(ctx, "live", []byte(fmt.Sprint(i)), 0))
	}
	st.Close() // waits for the background cleanup
	var n int
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "kv"}.Sanitize()).Scan(&n))
	assert.Equal(t, 1, n, "the expired rows were deleted in the background")
}

// Update holds the key's row lock while fn runs: a Take of the key from
// another replica waits for it and then takes the updated value. (A Take
// of a key that an Update is creating does not wait: it is ordered
// before the Update and finds nothing, which the contract allows.)
func TestUpdateLocksAgainstOtherReplicas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	a, b := newStore(t, schema, 2), newStore(t, schema, 2)
	require.NoError(t, a.Put(ctx, "k", []byte("old"), 0))
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	defer open() // never leave the Update waiting, even on failure
	done := make(chan error, 1)
	go func() {
		done <- a.Update(ctx, "k", func(old []byte, found bool) ([]byte, time.Duration, error) {
			assert.Equal(t, "old", string(old))
			close(entered)
			<-release
			return []byte("from a"), 0, nil
		})
	}()
	<-entered
	taken := make(chan []byte, 1)
	go func() {
		v, err := b.Take(ctx, "k")
		assert.NoError(t, err)
		taken <- v
	}()
	select {
	case v := <-taken:
		t.Errorf("Take did not wait for the Update: %q", v)
	case <-time.After(200 * time.Millisecond):
	}
	got, err := b.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "old", string(got), "readers see the committed value meanwhile")
	open()
	require.NoError(t, <-done)
	assert.Equal(t, "from a", string(<-taken))
}

// The placeholder row that locks a missing key during an Update is
// invisible to the other replicas.
func TestUpdatePlaceholderInvisible(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	a, b := newStore(t, schema, 2), newStore(t, schema, 2)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	defer func() {
		close(release)
		assert.Error(t, <-done, "fn's error")
	}()
	go func() {
		done <- a.Update(ctx, "new", func(old []byte, found bool) ([]byte, time.Duration, error) {
			close(entered)
			<-release
			return nil, 0, errors.New("changed my mind")
		})
	}()
	<-entered
	_, err := b.Get(ctx, "new")
	assert.ErrorIs(t, err, store.ErrNotStored)
	for k, err := range b.Keys(ctx, "") {
		require.NoError(t, err)
		t.Errorf("Keys lists %q", k)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	_, err := pgstore.New(nil)
	assert.Error(t, err)
	for _, bad := range []string{"", "Psd2", "a-b", "a;drop", `"x"`, "1abc", "ab" + string(make([]byte, 70))} {
		_, err := pgstore.Open(t.Context(), "host=/nonexistent", pgstore.WithSchema(bad))
		assert.Error(t, err, "%q", bad)
	}
	_, err = pgstore.Open(t.Context(), "postgres://user:s3cret@[::1", pgstore.WithSchema("ok"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret", "the connection string is not quoted")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err = pgstore.Open(ctx, "host=/nonexistent-psd2-socket-dir port=5432 user=x dbname=x connect_timeout=2")
	assert.Error(t, err, "no server")
}
