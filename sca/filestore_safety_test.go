package sca

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantPending writes, into dir, the file under which a FileStore keeps
// the pending SCA of state, as an attacker who can write there would.
func plantPending(t *testing.T, dir, state string) string {
	t.Helper()
	b, err := json.Marshal(pendingFor(state))
	require.NoError(t, err)
	name, _ := (&FileStore{}).name(pendingPrefix + state)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

func TestFileStoreRefusesUnsafeDirectories(t *testing.T) {
	t.Parallel()
	const otherUID = 65534 // nobody
	for _, tc := range []struct {
		name   string
		uid    int                                   // the user the store runs as
		setup  func(t *testing.T, dir string) string // returns the path to open
		reason string
	}{
		{name: "group may write", setup: withMode(0o770), reason: "open to group or others"},
		{name: "others may write", setup: withMode(0o703), reason: "open to group or others"},
		{name: "group may read", setup: withMode(0o750), reason: "open to group or others"},
		{name: "sticky world-writable", setup: withMode(os.ModeSticky | 0o777), reason: "open to group or others"},
		{name: "owned by another user", uid: otherUID, setup: withMode(0o700), reason: "owned by another user"},
		{name: "symbolic link to a private directory", setup: func(t *testing.T, dir string) string {
			require.NoError(t, os.Chmod(dir, 0o700))
			link := filepath.Join(t.TempDir(), "link")
			require.NoError(t, os.Symlink(dir, link))
			return link
		}, reason: "symbolic link"},
		{name: "a file", setup: func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "file")
			require.NoError(t, os.WriteFile(f, nil, 0o600))
			return f
		}, reason: "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The attacker pre-created the directory and planted a
			// pending SCA in it.
			dir := filepath.Join(t.TempDir(), "store")
			require.NoError(t, os.Mkdir(dir, 0o700))
			plantPending(t, dir, okState)
			path := tc.setup(t, dir)
			uid := os.Geteuid()
			if tc.uid != 0 {
				uid = tc.uid
			}
			st, err := openFileStore(path, uid)
			require.ErrorIs(t, err, ErrUnsafeStore)
			var ue *UnsafeStoreError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, path, ue.Path)
			assert.Contains(t, ue.Reason, tc.reason)
			assert.Nil(t, st, "no store to take the planted pending SCA from")
		})
	}

	t.Run("a private directory of ours is fine", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "store")
		require.NoError(t, os.Mkdir(dir, 0o700))
		_, err := openFileStore(dir, os.Geteuid())
		require.NoError(t, err)
	})
	if os.Geteuid() == 0 {
		// The real attack needs a second user: as root, hand the
		// directory to nobody and open it as ourselves.
		t.Run("chowned to another user", func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "store")
			require.NoError(t, os.Mkdir(dir, 0o700))
			require.NoError(t, os.Chown(dir, otherUID, otherUID))
			_, err := NewFileStore(dir)
			require.ErrorIs(t, err, ErrUnsafeStore)
		})
	}
}

// withMode sets the directory's mode.
func withMode(mode os.FileMode) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		require.NoError(t, os.Chmod(dir, mode))
		return dir
	}
}

func TestFileStoreNeverFollowsLinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	ctx := t.Context()

	t.Run("value file", func(t *testing.T) {
		t.Parallel()
		st := newFileStore(t)
		// A pending SCA outside the store, linked in under a state.
		target := plantPending(t, outside, "linked-state")
		name, _ := st.name(pendingPrefix + "linked-state")
		link := filepath.Join(st.Dir(), name)
		require.NoError(t, os.Symlink(target, link))
		before, err := os.ReadFile(target)
		require.NoError(t, err)

		_, err = st.Get(ctx, pendingPrefix+"linked-state")
		require.ErrorIs(t, err, ErrUnsafeStore)
		_, err = TakePending(ctx, st, "linked-state")
		require.ErrorIs(t, err, ErrUnsafeStore, "a linked pending SCA is never completed")
		require.NoError(t, os.Symlink(target, link), "Take moved the link away")
		err = st.Update(ctx, pendingPrefix+"linked-state", func([]byte, bool) ([]byte, error) {
			t.Error("fn must not run on a linked value")
			return []byte("x"), nil
		})
		require.ErrorIs(t, err, ErrUnsafeStore)

		// Put replaces the link itself; Delete removes it.
		require.NoError(t, st.Put(ctx, pendingPrefix+"linked-state", []byte("new")))
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		require.NoError(t, os.Remove(link))
		require.NoError(t, os.Symlink(target, link))
		require.NoError(t, st.Delete(ctx, pendingPrefix+"linked-state"))
		_, err = os.Lstat(link)
		assert.ErrorIs(t, err, os.ErrNotExist)

		after, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, before, after, "the link's target is never written")
	})

	t.Run("lock file", func(t *testing.T) {
		t.Parallel()
		st := newFileStore(t)
		target := filepath.Join(outside, "lock-target")
		_, shard := st.name("k")
		lock := filepath.Join(st.Dir(), lockName(shard))
		require.NoError(t, os.Symlink(target, lock))
		require.ErrorIs(t, st.Put(ctx, "k", []byte("v")), ErrUnsafeStore)
		_, err := st.Take(ctx, "k")
		require.ErrorIs(t, err, ErrUnsafeStore)
		_, err = os.Lstat(target)
		assert.ErrorIs(t, err, os.ErrNotExist, "the link's target is not created")
	})

	t.Run("not a regular file", func(t *testing.T) {
		t.Parallel()
		st := newFileStore(t)
		name, _ := st.name("k")
		require.NoError(t, os.Mkdir(filepath.Join(st.Dir(), name), 0o700))
		_, err := st.Get(ctx, "k")
		require.ErrorIs(t, err, ErrUnsafeStore)
		var ue *UnsafeStoreError
		require.ErrorAs(t, err, &ue)
		assert.Contains(t, ue.Reason, "not a regular file")
	})

	t.Run("stale temporary link", func(t *testing.T) {
		t.Parallel()
		st := newFileStore(t)
		target := filepath.Join(outside, "tmp-target")
		require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
		link := filepath.Join(st.Dir(), tmpPrefix+"x")
		require.NoError(t, os.Symlink(target, link))
		st.removeStale(timeAfterStale(t, link))
		_, err := os.Lstat(link)
		assert.ErrorIs(t, err, os.ErrNotExist, "the link is removed")
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "keep", string(b), "its target is not")
	})
}

// timeAfterStale returns a time at which the entry path is stale.
func timeAfterStale(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.ModTime().Add(staleTemp + time.Second)
}
