package pgstore_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
)

// TestStoredValueBounded: a row whose value is above store.MaxValueLen
// (written by another application, by hand, or by a release without the
// bound) is refused by Get, Take and Update with an error matching
// store.ErrValueTooLarge, without the value crossing the wire; Keys
// ends with an error at a key above store.MaxKeyLen, which no other
// method takes, without reading it (TestKeysOverlongKeyIsAnError). On the
// code before, Get of a 64 MiB value allocated the 64 MiB (and up to
// PostgreSQL's 1 GB for a bytea), and Keys read every key whole.
//
// Not parallel, and the bound is generous (each value read would add 64
// MiB): the allocations counted are the whole process's.
func TestStoredValueBounded(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 2)
	const size = 64 << 20
	tbl := pgx.Identifier{schema, "kv"}.Sanitize()
	pool := pgtest.Pool(t, 1)
	for _, k := range []string{"big/get", "big/take", "big/update"} {
		_, err := pool.Exec(ctx, `INSERT INTO `+tbl+` (key, value) VALUES ($1, convert_to(repeat('a', $2), 'UTF8'))`, k, size)
		require.NoError(t, err)
	}
	longKey := "big/" + strings.Repeat("k", 200<<10)
	_, err := pool.Exec(ctx, `INSERT INTO `+tbl+` (key, value) VALUES ($1, '')`, longKey)
	require.NoError(t, err)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, getErr := st.Get(ctx, "big/get")
	_, takeErr := st.Take(ctx, "big/take")
	ran := false
	updErr := st.Update(ctx, "big/update", func(old []byte, found bool) ([]byte, time.Duration, error) {
		ran = true
		return old, 0, nil
	})
	var keys []string
	var keysErr error
	for k, err := range st.Keys(ctx, "big/") {
		if err != nil {
			keysErr = err
			break
		}
		keys = append(keys, k[:min(len(k), 40)])
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("Get, Take, Update and Keys of three %d MiB values and a 200 KiB key allocated %d MiB", size>>20, alloc>>20)
	assert.ErrorIs(t, getErr, store.ErrValueTooLarge, "Get")
	assert.ErrorIs(t, takeErr, store.ErrValueTooLarge, "Take")
	assert.ErrorIs(t, updErr, store.ErrValueTooLarge, "Update")
	assert.False(t, ran, "Update ran fn on a value above store.MaxValueLen")
	assert.Equal(t, []string{"big/get"}, keys, "Keys: those before the over-long key")
	assert.ErrorIs(t, keysErr, store.ErrInvalidKey, "Keys")
	assert.Less(t, alloc, uint64(size/2), "reading values above store.MaxValueLen allocated them")
}
