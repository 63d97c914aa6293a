package store_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// Listing a few sessions among many budget keys reads the sessions'
// files, not every file of the store: a key's file name is its hash, so
// the key under a name read once is known for good. Keys written or
// removed by another process since are still seen.
func TestFileStoreKeysReadsOnlyItsPrefix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	ctx := t.Context()
	for i := range 200 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("budget/account-%03d", i), []byte("x"), time.Hour))
	}
	for i := range 3 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("sca/session-%d", i), []byte("s"), time.Hour))
	}
	list := func(s *store.FileStore, prefix string) []string {
		var keys []string
		for k, err := range s.Keys(ctx, prefix) {
			require.NoError(t, err)
			keys = append(keys, k)
		}
		return keys
	}
	assert.Equal(t, []string{"sca/session-0", "sca/session-1", "sca/session-2"}, list(st, "sca/"))
	before := store.Opened(st)
	assert.Equal(t, []string{"sca/session-0", "sca/session-1", "sca/session-2"}, list(st, "sca/"))
	assert.EqualValues(t, 3, store.Opened(st)-before, "the second listing reads the sessions' files only")

	// Another process writes a session and removes one.
	other, err := store.NewFileStore(dir)
	require.NoError(t, err)
	require.NoError(t, other.Put(ctx, "sca/session-9", []byte("s"), time.Hour))
	require.NoError(t, other.Delete(ctx, "sca/session-1"))
	before = store.Opened(st)
	assert.Equal(t, []string{"sca/session-0", "sca/session-2", "sca/session-9"}, list(st, "sca/"))
	assert.EqualValues(t, 3, store.Opened(st)-before, "the new file and the two known sessions")

	// A listing of everything still reads every file (their expiries).
	all := list(st, "")
	assert.Len(t, all, 203)
	assert.True(t, slices.IsSorted(all))
}

// BenchmarkFileStoreKeysPrefix lists 10 sessions among 20,000 budget
// keys: by a store that never listed the directory (it reads every file
// for its key, as every listing did before keyNames), and by one that
// did (it reads the sessions' files only).
func BenchmarkFileStoreKeysPrefix(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(b, err)
	ctx := b.Context()
	for i := range 20_000 {
		require.NoError(b, st.Put(ctx, fmt.Sprintf("budget/account-%05d", i), []byte("x"), time.Hour))
	}
	for i := range 10 {
		require.NoError(b, st.Put(ctx, fmt.Sprintf("sca/session-%d", i), []byte("s"), time.Hour))
	}
	list := func(s *store.FileStore) {
		n := 0
		for _, err := range s.Keys(ctx, "sca/") {
			require.NoError(b, err)
			n++
		}
		require.Equal(b, 10, n)
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer() // opening a store sweeps its directory
			fresh, err := store.NewFileStore(dir)
			require.NoError(b, err)
			b.StartTimer()
			list(fresh)
		}
	})
	b.Run("known", func(b *testing.B) {
		list(st)
		for b.Loop() {
			list(st)
		}
	})
}

// The store forgets the names of files gone from its directory: keys
// come and go (a session per login), and a cache that kept the names of
// deleted keys filled up with them for good, after which it learned no
// new name and every listing read every file again, as before the cache.
func TestFileStoreKeysForgetsGoneNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	store.LimitKnownNames(st, 100)
	ctx := t.Context()
	list := func(prefix string) []string {
		var keys []string
		for k, err := range st.Keys(ctx, prefix) {
			require.NoError(t, err)
			keys = append(keys, k)
		}
		return keys
	}
	for i := range 100 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("sca/old-%03d", i), []byte("s"), time.Hour))
	}
	assert.Len(t, list("sca/"), 100)
	assert.Equal(t, 100, store.KnownNames(st), "the cache is full")
	for i := range 100 {
		require.NoError(t, st.Delete(ctx, fmt.Sprintf("sca/old-%03d", i)))
	}
	for i := range 50 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("budget/account-%03d", i), []byte("x"), time.Hour))
	}
	require.NoError(t, st.Put(ctx, "sca/new-0", []byte("s"), time.Hour))
	assert.Equal(t, []string{"sca/new-0"}, list("sca/"))
	before := store.Opened(st)
	assert.Equal(t, []string{"sca/new-0"}, list("sca/"))
	assert.EqualValues(t, 1, store.Opened(st)-before, "the second listing reads the session's file only")
	assert.Equal(t, 51, store.KnownNames(st), "the names of the deleted keys are forgotten")
}
