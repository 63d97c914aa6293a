package pgstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// Keys reads in pages of 1000: more keys than a page, among them keys
// that go on from another key, come back once each, in byte order, for
// a whole prefix and for one cut short in the middle of a character
// ("k/\xc3", the first byte of "é").
func TestKeysPages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	schema := pgtest.Schema(t)
	st := newStore(t, schema, 4)
	var all []string
	for i := range 1100 {
		all = append(all, fmt.Sprintf("k/a%04d", i), fmt.Sprintf("k/é%04d", i))
		if i%100 == 0 {
			all = append(all, fmt.Sprintf("k/é%04d ", i), fmt.Sprintf("k/é%04d/x", i))
		}
	}
	_, err := pgtest.Pool(t, 1).CopyFrom(ctx, pgx.Identifier{schema, "kv"}, []string{"key", "value"},
		pgx.CopyFromSlice(len(all), func(i int) ([]any, error) { return []any{all[i], []byte("v")}, nil }))
	require.NoError(t, err)
	slices.Sort(all)
	for _, prefix := range []string{"", "k/", "k/\xc3", "k/é", "k/a"} {
		var got []string
		for k, err := range st.Keys(ctx, prefix) {
			require.NoError(t, err)
			got = append(got, k)
		}
		var want []string
		for _, k := range all {
			if strings.HasPrefix(k, prefix) {
				want = append(want, k)
			}
		}
		assert.Equal(t, want, got, "Keys(%q)", prefix)
	}
}
