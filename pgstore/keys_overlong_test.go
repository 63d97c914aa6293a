package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/store"
)

// TestKeysOverlongKeyIsAnError: a row whose key is above
// store.MaxKeyLen (written by another application or by hand: no
// method takes one) is under the prefix all the same, and Keys cannot
// give it: it ends the sequence with an error matching
// store.ErrInvalidKey, as the file store does for an entry it cannot
// read, after the keys before it, and the key never crosses the wire.
// On the code before, Keys left it out without a word, so a listing of
// the prefix (psd2 journal list) read as whole without it.
func TestKeysOverlongKeyIsAnError(t *testing.T) {
	ctx := context.Background()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 2)
	tbl := pgx.Identifier{schema, "kv"}.Sanitize()
	pool := pgtest.Pool(t, 1)
	for _, k := range []string{"p/a", "p/z", "q/a"} {
		require.NoError(t, st.Put(ctx, k, []byte("v"), 0))
	}
	longKey := "p/" + strings.Repeat("k", 200<<10)
	_, err := pool.Exec(ctx, `INSERT INTO `+tbl+` (key, value) VALUES ($1, '')`, longKey)
	require.NoError(t, err)

	var keys []string
	var got error
	for k, err := range st.Keys(ctx, "p/") {
		if err != nil {
			got = err
			break
		}
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"p/a"}, keys, "the keys before it")
	require.Error(t, got, "an over-long key under the prefix is no key to leave out")
	assert.ErrorIs(t, got, store.ErrInvalidKey)
	assert.Less(t, len(got.Error()), 1000, "the key is not quoted whole")

	// Another prefix's keys are listed as before.
	keys = nil
	for k, err := range st.Keys(ctx, "q/") {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"q/a"}, keys)
}
