package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/store/storetest"
)

// isolatedDatabase creates a database of its own whose
// default_transaction_isolation is level, set by ALTER DATABASE as an
// operator would, and dropped when the test ends. Other tests, on other
// databases, never see the setting.
func isolatedDatabase(tb testing.TB, level string) string {
	tb.Helper()
	conn := pgtest.Conn(tb)
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	name := "pgstore_iso_" + hex.EncodeToString(b[:])
	ident := pgx.Identifier{name}.Sanitize()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, conn)
	require.NoError(tb, err)
	defer func() { _ = c.Close(context.Background()) }()
	_, err = c.Exec(ctx, `CREATE DATABASE `+ident)
	require.NoError(tb, err)
	// Registered before any pool on the database, so it runs after they
	// are closed.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, conn)
		if err != nil {
			tb.Errorf("dropping database %s: %v", name, err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		if _, err := c.Exec(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`); err != nil {
			tb.Errorf("dropping database %s: %v", name, err)
		}
	})
	_, err = c.Exec(ctx, `ALTER DATABASE `+ident+` SET default_transaction_isolation = '`+level+`'`)
	require.NoError(tb, err)
	return name
}

// poolOn returns a pool of maxConns connections on database db of the
// test server, closed when the test ends; tracer, when not nil, sees
// every statement.
func poolOn(tb testing.TB, db string, maxConns int32, tracer pgx.QueryTracer) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.Conn(tb))
	require.NoError(tb, err)
	if db != "" {
		cfg.ConnConfig.Database = db
	}
	cfg.MaxConns = maxConns
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// Operators often make repeatable read or serializable the default of a
// database (or role). The store must not inherit it: under contention
// those levels answer with serialization failures (SQLSTATE 40001)
// instead of waiting. With the default set on the store's own database,
// replicas racing on one key still behave as the store.Store contract
// says: concurrent Migrates all succeed, every Update and Put lands, the
// counter equals the number of Updates, and of concurrent Takes of a key
// exactly one gets the value while the others get store.ErrNotStored.
func TestStrictDefaultIsolation(t *testing.T) {
	t.Parallel()
	for _, level := range []string{"repeatable read", "serializable"} {
		t.Run(strings.ReplaceAll(level, " ", "_"), func(t *testing.T) {
			ctx := t.Context()
			db := isolatedDatabase(t, level)
			const replicas = 4
			stores := make([]*pgstore.Store, replicas)
			for i := range stores {
				pool := poolOn(t, db, 3, nil)
				var got string
				require.NoError(t, pool.QueryRow(ctx, `SHOW default_transaction_isolation`).Scan(&got))
				require.Equal(t, level, got, "the database's default reaches the store's connections")
				var err error
				stores[i], err = pgstore.New(pool, pgstore.WithSchema("psd2"))
				require.NoError(t, err)
				t.Cleanup(stores[i].Close)
			}

			// Every replica migrates at start-up, at once.
			race(t, replicas, func(g int) error { return stores[g].Migrate(ctx) })

			// 8 goroutines over the replicas add 1 to one counter 400
			// times; fn sleeps a little to widen the window.
			const workers, perWorker = 8, 50
			var calls atomic.Int64
			race(t, workers, func(g int) error {
				for range perWorker {
					err := stores[g%replicas].Update(ctx, "budget/x", func(old []byte, found bool) ([]byte, time.Duration, error) {
						calls.Add(1)
						n := 0
						if found {
							var err error
							if n, err = strconv.Atoi(string(old)); err != nil {
								return nil, 0, err
							}
						}
						time.Sleep(100 * time.Microsecond)
						return []byte(strconv.Itoa(n + 1)), time.Hour, nil
					})
					if err != nil {
						return err
					}
				}
				return nil
			})
			v, err := stores[1].Get(ctx, "budget/x")
			require.NoError(t, err)
			assert.Equal(t, strconv.Itoa(workers*perWorker), string(v), "every Update counted once")
			t.Logf("%s: %d Updates ran fn %d times", level, workers*perWorker, calls.Load())

			// Concurrent Puts of one key all succeed.
			race(t, workers, func(g int) error {
				for i := range perWorker {
					if err := stores[g%replicas].Put(ctx, "session/x", []byte(fmt.Sprint(g, i)), time.Hour); err != nil {
						return err
					}
				}
				return nil
			})

			// Four replicas take each of 100 keys at once: one wins.
			const keys = 100
			for i := range keys {
				k := "sca/pending/" + strconv.Itoa(i)
				require.NoError(t, stores[0].Put(ctx, k, []byte("v"+strconv.Itoa(i)), time.Hour))
				var winners atomic.Int64
				race(t, replicas, func(g int) error {
					got, err := stores[g].Take(ctx, k)
					switch {
					case err == nil:
						winners.Add(1)
						if string(got) != "v"+strconv.Itoa(i) {
							return fmt.Errorf("Take(%s) = %q", k, got)
						}
						return nil
					case errors.Is(err, store.ErrNotStored):
						return nil
					default:
						return err
					}
				})
				require.Equal(t, int64(1), winners.Load(), "winners of %s", k)
			}

			// Concurrent cleanups and Deletes.
			for i := range 50 {
				require.NoError(t, stores[0].Put(ctx, "old/"+strconv.Itoa(i), []byte("o"), time.Millisecond))
			}
			time.Sleep(5 * time.Millisecond)
			race(t, replicas, func(g int) error {
				if _, err := stores[g].Cleanup(ctx); err != nil {
					return err
				}
				return stores[g].Delete(ctx, "session/x")
			})
			for k, err := range stores[2].Keys(ctx, "") {
				require.NoError(t, err)
				assert.Equal(t, "budget/x", k, "only the counter is left")
			}
		})
	}
}

// race runs f(0) ... f(n-1) in goroutines started at once and fails the
// test with every error they return.
func race(t *testing.T, n int, f func(g int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[g] = f(g)
		}()
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

// txTracer checks, per connection, that every statement the store sends
// runs inside a transaction it began with an explicit READ COMMITTED.
type txTracer struct {
	mu         sync.Mutex
	inTx       map[*pgx.Conn]bool
	statements int
	outside    []string
}

func (tr *txTracer) see(conn *pgx.Conn, sql string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.statements++
	s := strings.ToUpper(strings.Join(strings.Fields(sql), " "))
	switch {
	case s == "BEGIN ISOLATION LEVEL READ COMMITTED":
		tr.inTx[conn] = true
	case s == "COMMIT" || s == "ROLLBACK":
		tr.inTx[conn] = false
	case !tr.inTx[conn]:
		tr.outside = append(tr.outside, s[:min(len(s), 60)])
	}
}

func (tr *txTracer) TraceQueryStart(ctx context.Context, conn *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	tr.see(conn, d.SQL)
	return ctx
}

func (tr *txTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (tr *txTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (tr *txTracer) TraceBatchQuery(_ context.Context, conn *pgx.Conn, d pgx.TraceBatchQueryData) {
	tr.see(conn, d.SQL)
}

func (tr *txTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Every statement of every method (the conformance suite's calls,
// Migrate, Version and Cleanup) runs in a transaction begun with BEGIN
// ISOLATION LEVEL READ COMMITTED on its connection: none runs under the
// database's default.
func TestEveryStatementReadCommitted(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	tr := &txTracer{inTx: map[*pgx.Conn]bool{}}
	// A subtest returns when its parallel subtests have ended.
	t.Run("conformance", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			st, err := pgstore.New(poolOn(t, "", 4, tr), pgstore.WithSchema(schema))
			require.NoError(t, err)
			require.NoError(t, st.Migrate(t.Context()))
			_, err = st.Version(t.Context())
			require.NoError(t, err)
			_, err = st.Cleanup(t.Context())
			require.NoError(t, err)
			t.Cleanup(st.Close)
			return st
		})
	})
	tr.mu.Lock()
	defer tr.mu.Unlock()
	assert.Positive(t, tr.statements)
	if len(tr.outside) > 0 {
		t.Errorf("%d of %d statements ran outside a transaction begun with BEGIN ISOLATION LEVEL READ COMMITTED, the first: %q",
			len(tr.outside), tr.statements, tr.outside[:min(len(tr.outside), 3)])
	}
}

// injector makes writes to a schema's kv fail with a chosen SQLSTATE: a
// trigger fails every UPDATE that changes a value and every DELETE while
// a sequence (whose nextval is never rolled back) is below a limit. The
// lock statement of Update (which changes no value) passes, so a failure
// comes after fn ran.
type injector struct {
	pool   *pgxpool.Pool
	schema string
}

func newInjector(t *testing.T, pool *pgxpool.Pool, schema string) *injector {
	t.Helper()
	in := &injector{pool: pool, schema: schema}
	q := func(name string) string { return pgx.Identifier{schema, name}.Sanitize() }
	_, err := pool.Exec(t.Context(), `
		CREATE TABLE `+q("inject")+` (lim bigint NOT NULL, code text NOT NULL);
		INSERT INTO `+q("inject")+` VALUES (0, '40001');
		CREATE SEQUENCE `+q("injected")+`;
		CREATE FUNCTION `+q("inject_fail")+`() RETURNS trigger LANGUAGE plpgsql AS $$
		DECLARE lim bigint; c text;
		BEGIN
			SELECT i.lim, i.code INTO lim, c FROM `+q("inject")+` i;
			IF nextval('`+q("injected")+`') <= lim THEN
				RAISE EXCEPTION 'injected failure' USING ERRCODE = c;
			END IF;
			IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER inject_update BEFORE UPDATE ON `+q("kv")+` FOR EACH ROW
			WHEN (OLD.value IS DISTINCT FROM NEW.value) EXECUTE FUNCTION `+q("inject_fail")+`();
		CREATE TRIGGER inject_delete BEFORE DELETE ON `+q("kv")+` FOR EACH ROW EXECUTE FUNCTION `+q("inject_fail")+`();`)
	require.NoError(t, err)
	return in
}

// fail makes the next n value changes and deletes fail with code.
func (in *injector) fail(t *testing.T, n int, code string) {
	t.Helper()
	_, err := in.pool.Exec(t.Context(), `UPDATE `+pgx.Identifier{in.schema, "inject"}.Sanitize()+` SET lim = $1, code = $2`, n, code)
	require.NoError(t, err)
	_, err = in.pool.Exec(t.Context(), `SELECT setval($1, 1, false)`, pgx.Identifier{in.schema, "injected"}.Sanitize())
	require.NoError(t, err)
}

// A transaction that fails with a serialization failure (40001) or a
// deadlock (40P01) runs again, on a pool of one connection (so a
// connection left in a failed transaction would hang the next call):
// Update's fn runs once per attempt and the value changes once; a Take
// that failed twice still takes the value, and the next Take gets
// store.ErrNotStored. When every attempt fails, the method returns a
// *pgstore.ContentionError after 10 attempts and the row is unchanged;
// when ctx ends meanwhile, the error matches ctx's.
func TestRetriesSerializationFailuresAndDeadlocks(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	schema := pgtest.Schema(t)
	st, err := pgstore.New(poolOn(t, "", 1, nil), pgstore.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, st.Migrate(ctx))
	in := newInjector(t, pgtest.Pool(t, 1), schema)

	var calls int
	incr := func(old []byte, found bool) ([]byte, time.Duration, error) {
		calls++
		n, err := strconv.Atoi(string(old))
		if err != nil {
			return nil, 0, err
		}
		return []byte(strconv.Itoa(n + 1)), 0, nil
	}
	get := func() string {
		v, err := st.Get(ctx, "k")
		require.NoError(t, err)
		return string(v)
	}

	require.NoError(t, st.Put(ctx, "k", []byte("1"), 0))
	in.fail(t, 3, "40001")
	require.NoError(t, st.Update(ctx, "k", incr))
	assert.Equal(t, 4, calls, "fn ran once per attempt")
	assert.Equal(t, "2", get(), "the value changed once")

	in.fail(t, 2, "40P01")
	v, err := st.Take(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "2", string(v))
	_, err = st.Take(ctx, "k")
	assert.ErrorIs(t, err, store.ErrNotStored)

	require.NoError(t, st.Put(ctx, "k", []byte("5"), 0))
	in.fail(t, 1000, "40001")
	calls = 0
	err = st.Update(ctx, "k", incr)
	var ce *pgstore.ContentionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 10, ce.Attempts)
	assert.Equal(t, 10, calls)
	_, err = st.Take(ctx, "k")
	require.ErrorAs(t, err, &ce, "Take")
	assert.NotErrorIs(t, err, store.ErrNotStored)
	assert.Equal(t, "5", get(), "nothing committed")

	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	defer stop()
	began := time.Now()
	err = st.Update(short, "k", incr)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(began), 2*time.Second, "the pauses end with ctx")
	assert.Equal(t, "5", get())

	in.fail(t, 0, "40001")
	require.NoError(t, st.Update(ctx, "k", incr))
	assert.Equal(t, "6", get())
}
