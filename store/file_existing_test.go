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
	// A file store opened up to others: a store, and unsafe.
	open := filepath.Join(base, "open")
	unsafe, err := NewFileStore(open)
	require.NoError(t, err)
	require.NoError(t, unsafe.Put(ctx, "k", []byte("v"), 0))
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

// TestOpenFileStoreNamesNoStoreBeforeItsMode: a directory that holds no
// file store is refused as such (ErrNoFileStore: empty, or holding
// another application's files) whatever its mode and owner: mkdir's
// 0755, /tmp's 1777, another user's home. It was refused as unsafe ("is
// open to group or others", "is owned by another user"), which sends
// the operator to chmod a directory that is not the store at all. A
// file store whose mode was opened up is still refused as unsafe.
func TestOpenFileStoreNamesNoStoreBeforeItsMode(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	empty := filepath.Join(base, "empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	require.NoError(t, os.Chmod(empty, 0o755))
	other := filepath.Join(base, "other")
	require.NoError(t, os.Mkdir(other, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o600))
	require.NoError(t, os.Chmod(other, 0o755))
	shared := filepath.Join(base, "shared")
	require.NoError(t, os.Mkdir(shared, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(shared, "x.sock"), nil, 0o600))
	require.NoError(t, os.Chmod(shared, 0o777|os.ModeSticky))
	cases := map[string]string{"an empty directory of mode 0755": empty, "another application's directory of mode 0755": other, "a directory like /tmp": shared}
	// Another user's directory: only root can give one away.
	home := filepath.Join(base, "home")
	require.NoError(t, os.Mkdir(home, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".profile"), []byte("x"), 0o600))
	if err := os.Chown(home, os.Geteuid()+1, -1); err == nil {
		cases["another user's directory"] = home
	} else {
		t.Logf("another user's directory not tried: %v", err)
	}
	for name, dir := range cases {
		_, err := OpenFileStore(dir)
		assert.ErrorIs(t, err, ErrNoFileStore, name)
		assert.NotErrorIs(t, err, ErrUnsafeStore, name)
	}

	st := newFileStore(t)
	require.NoError(t, st.Put(t.Context(), "k", []byte("v"), 0))
	require.NoError(t, os.Chmod(st.Dir(), 0o755))
	_, err := OpenFileStore(st.Dir())
	assert.ErrorIs(t, err, ErrUnsafeStore, "a file store open to others")
	assert.NotErrorIs(t, err, ErrNoFileStore)
}
