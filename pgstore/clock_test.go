package pgstore_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/store/storetest"
)

// A store with a clock (WithClock) meets the store's contract: here the
// system clock, read by the store instead of the database.
func TestConformanceWithClock(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := pgstore.New(pgtest.Pool(t, 8), pgstore.WithSchema(schema), pgstore.WithClock(time.Now))
		require.NoError(t, err)
		require.NoError(t, st.Migrate(t.Context()))
		t.Cleanup(st.Close)
		return st
	})
}

// With a clock, expiry follows the clock, not the database: a value with
// a ttl of a day is there until the clock has moved a day, whatever the
// time on the database, then invisible to every method and deleted by
// Cleanup; a value without a ttl stays. A clock days ahead of the
// database is how a soak simulates many days in minutes.
func TestClockJudgesExpiry(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	clock := testtpp.NewClock(time.Now().Add(90 * 24 * time.Hour))
	st, err := pgstore.New(pgtest.Pool(t, 4), pgstore.WithSchema(schema), pgstore.WithClock(clock.Now))
	require.NoError(t, err)
	require.NoError(t, st.Migrate(ctx))
	t.Cleanup(st.Close)
	for i := range 3 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("day/%d", i), []byte("d"), 24*time.Hour))
	}
	require.NoError(t, st.Update(ctx, "day/upd", func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte("u"), 24 * time.Hour, nil
	}))
	require.NoError(t, st.Put(ctx, "kept", []byte("k"), 0))
	listed := func() []string {
		var keys []string
		for k, err := range st.Keys(ctx, "") {
			require.NoError(t, err)
			keys = append(keys, k)
		}
		return keys
	}

	clock.Add(24*time.Hour - time.Second)
	n, err := st.Cleanup(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing has expired on the clock")
	assert.Equal(t, []string{"day/0", "day/1", "day/2", "day/upd", "kept"}, listed())
	err = st.Update(ctx, "day/upd", func(old []byte, found bool) ([]byte, time.Duration, error) {
		if !found || string(old) != "u" {
			return nil, 0, errors.New("the value is gone before its ttl ended")
		}
		return nil, 0, errUnchanged
	})
	require.ErrorIs(t, err, errUnchanged)

	clock.Add(2 * time.Second)
	assert.Equal(t, []string{"kept"}, listed())
	_, err = st.Get(ctx, "day/0")
	assert.ErrorIs(t, err, store.ErrNotStored)
	_, err = st.Take(ctx, "day/1")
	assert.ErrorIs(t, err, store.ErrNotStored)
	n, err = st.Cleanup(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, n, "day/0, day/2 and day/upd (Take deleted day/1)")
	var rows int
	require.NoError(t, pgtest.Pool(t, 1).QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "kv"}.Sanitize()).Scan(&rows))
	assert.Equal(t, 1, rows, "kept")
}

// errUnchanged ends an Update without a write.
var errUnchanged = errors.New("unchanged")

// WithClock refuses a nil clock.
func TestWithClockNil(t *testing.T) {
	_, err := pgstore.New(pgtest.Pool(t, 1), pgstore.WithClock(nil))
	assert.Error(t, err)
}

// A store with a clock keeps a value for at least its ttl on that clock,
// to the nanosecond as the clock reads: the database holds microseconds,
// and a clock between two of them (here 700ns past one) must not make a
// value expire before its ttl has passed (its expiry and the clock were
// both cut down to the microsecond: the value of a ttl of an hour, read
// an hour less 500ns later, was gone).
func TestClockSubMicrosecond(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	base := time.Now().Add(24 * time.Hour).Truncate(time.Second)
	clock := testtpp.NewClock(base.Add(700 * time.Nanosecond))
	st, err := pgstore.New(pgtest.Pool(t, 4), pgstore.WithSchema(schema), pgstore.WithClock(clock.Now))
	require.NoError(t, err)
	require.NoError(t, st.Migrate(ctx))
	t.Cleanup(st.Close)
	require.NoError(t, st.Put(ctx, "put", []byte("p"), time.Hour))
	require.NoError(t, st.Update(ctx, "upd", func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte("u"), time.Hour, nil
	}))

	clock.Add(time.Hour - 500*time.Nanosecond) // 200ns past base+1h: 500ns of the ttl left
	for _, k := range []string{"put", "upd"} {
		v, err := st.Get(ctx, k)
		assert.NoError(t, err, "Get(%q) 500ns before its ttl ends", k)
		assert.NotEmpty(t, v)
	}
	var keys []string
	for k, err := range st.Keys(ctx, "") {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"put", "upd"}, keys, "Keys 500ns before the ttl ends")
	err = st.Update(ctx, "upd", func(_ []byte, found bool) ([]byte, time.Duration, error) {
		if !found {
			return nil, 0, errors.New("the value is gone before its ttl ended")
		}
		return nil, 0, errUnchanged
	})
	assert.ErrorIs(t, err, errUnchanged)
	n, err := st.Cleanup(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing has expired on the clock")
	v, err := st.Take(ctx, "put")
	assert.NoError(t, err, "Take 500ns before the ttl ends")
	assert.Equal(t, "p", string(v))

	clock.Add(2 * time.Microsecond) // past the ttl
	_, err = st.Get(ctx, "upd")
	assert.ErrorIs(t, err, store.ErrNotStored, "after the ttl")
}
