package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenFileStoreOnlyOpensAStore: OpenFileStore opens a directory a
// FileStore wrote to, and refuses every other path without creating
// anything.
func TestOpenFileStoreOnlyOpensAStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "journal/entry/a", []byte("x"), 0))
	opened, err := OpenFileStore(st.Dir())
	require.NoError(t, err)
	got, err := opened.Get(ctx, "journal/entry/a")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	// Every value gone (deleted): its lock files stay, it is still a store.
	require.NoError(t, st.Delete(ctx, "journal/entry/a"))
	_, err = OpenFileStore(st.Dir())
	require.NoError(t, err)

	base := t.TempDir()
	missing := filepath.Join(base, "typo")
	empty := filepath.Join(base, "empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	other := filepath.Join(base, "other")
	require.NoError(t, os.Mkdir(other, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o600))
	mixed := t.TempDir()
	require.NoError(t, os.Chmod(mixed, 0o700))
	ms, err := NewFileStore(mixed)
	require.NoError(t, err)
	require.NoError(t, ms.Put(ctx, "k", []byte("v"), 0))
	require.NoError(t, os.Mkdir(filepath.Join(mixed, "sub"), 0o700))
	file := filepath.Join(base, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	open := filepath.Join(base, "open")
	require.NoError(t, os.Mkdir(open, 0o755))
	require.NoError(t, os.Chmod(open, 0o755))

	for name, dir := range map[string]string{"missing": missing, "empty": empty, "other": other, "mixed": mixed, "file": file, "none": ""} {
		_, err := OpenFileStore(dir)
		assert.ErrorIs(t, err, ErrNoFileStore, name)
	}
	_, err = OpenFileStore(open)
	assert.ErrorIs(t, err, ErrUnsafeStore, "a directory open to others")
	_, err = os.Lstat(missing)
	assert.ErrorIs(t, err, os.ErrNotExist, "the missing directory was not created")
}
