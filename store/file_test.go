package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newFileStore(t testing.TB) *FileStore {
	t.Helper()
	st, err := NewFileStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	return st
}

// valueFiles lists the value files of a file store's directory: neither
// its lock files nor its spares and other temporary files.
func valueFiles(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []os.DirEntry
	for _, e := range entries {
		if _, ok := shardOfName(e.Name()); ok {
			out = append(out, e)
		}
	}
	return out
}

// plant writes, into dir, the file under which a FileStore keeps key, as
// an attacker who can write there would.
func plant(t *testing.T, dir, key string, value []byte) string {
	t.Helper()
	name, _ := (&FileStore{}).name(key)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, encodeFile(key, value, time.Time{}), 0o600))
	return path
}

const plantedKey = "sca/pending/planted-state"

// encodeOldFile returns a value file of format version 1 or 2 (magic):
// the header, then the value.
func encodeOldFile(magic, key string, value []byte, expires time.Time) []byte {
	return append([]byte(magic), encodeContent(key, value, expires)...)
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
			plant(t, dir, plantedKey, []byte(`{"psuId":"attacker"}`))
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
		// A pending SCA outside the store, linked in under its key.
		const key = "sca/pending/linked-state"
		target := plant(t, outside, key, []byte("attacker"))
		name, _ := st.name(key)
		link := filepath.Join(st.Dir(), name)
		require.NoError(t, os.Symlink(target, link))
		before, err := os.ReadFile(target)
		require.NoError(t, err)

		_, err = st.Get(ctx, key)
		require.ErrorIs(t, err, ErrUnsafeStore)
		_, err = st.Take(ctx, key)
		require.ErrorIs(t, err, ErrUnsafeStore, "a linked pending SCA is never taken")
		_, err = os.Lstat(link)
		require.NoError(t, err, "Take left the link where it was")
		err = st.Update(ctx, key, func([]byte, bool) ([]byte, time.Duration, error) {
			t.Error("fn must not run on a linked value")
			return []byte("x"), 0, nil
		})
		require.ErrorIs(t, err, ErrUnsafeStore)
		for k, err := range st.Keys(ctx, "") {
			assert.ErrorIs(t, err, ErrUnsafeStore, "Keys does not read through the link (%q)", k)
		}

		// Put replaces the link itself; Delete removes it.
		require.NoError(t, st.Put(ctx, key, []byte("new"), 0))
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.True(t, fi.Mode().IsRegular())
		require.NoError(t, os.Remove(link))
		require.NoError(t, os.Symlink(target, link))
		require.NoError(t, st.Delete(ctx, key))
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
		require.ErrorIs(t, st.Put(ctx, "k", []byte("v"), 0), ErrUnsafeStore)
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
		entries, err := os.ReadDir(st.Dir())
		require.NoError(t, err)
		st.removeStale(entries, timeAfterStale(t, link))
		_, err = os.Lstat(link)
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

// A file that is not in the store's format, or holds another key than its
// name says (a file copied under another name), is never returned as a
// value.
func TestFileStoreRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	name, _ := st.name("a")
	require.NoError(t, os.WriteFile(filepath.Join(st.Dir(), name), []byte(`{"psuId":"x"}`), 0o600))
	_, err := st.Get(ctx, "a")
	assert.ErrorIs(t, err, ErrCorrupt)

	require.NoError(t, st.Put(ctx, "b", []byte("b's value"), 0))
	bName, _ := st.name("b")
	cName, _ := st.name("c")
	require.NoError(t, os.Link(filepath.Join(st.Dir(), bName), filepath.Join(st.Dir(), cName)))
	_, err = st.Get(ctx, "c")
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = st.Take(ctx, "c")
	assert.ErrorIs(t, err, ErrCorrupt)
	got, err := st.Get(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, "b's value", string(got))
}

func TestFileStoreWritesOnlyInsideItsDirectory(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	st, err := NewFileStore(filepath.Join(parent, "store"))
	require.NoError(t, err)
	require.Error(t, st.Put(t.Context(), "../escaped", []byte("v"), 0))
	require.NoError(t, st.Put(t.Context(), "sca/session/x..y", []byte("v"), 0), "\"..\" inside a name is fine")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written next to the store")
	files := valueFiles(t, st.Dir())
	require.NotEmpty(t, files)
	for _, f := range files {
		assert.NotContains(t, f.Name(), "/")
		assert.True(t, strings.HasSuffix(f.Name(), valueSuffix))
	}
}

func TestFileStorePermissions(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	require.NoError(t, st.Put(t.Context(), "sca/session/user-1", []byte("secret"), 0))
	fi, err := os.Stat(st.Dir())
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), fi.Mode().Perm(), "directory")
	entries, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	want := 2
	if st.reuse && preparesSpares {
		want += spareBatch - 1 // the prepared spares the write did not use
	}
	require.Len(t, entries, want, "the value, its shard's lock file and the spares left")
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), e.Name())
	}

	open := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(open, 0o700))
	require.NoError(t, os.Chmod(open, 0o755))
	_, err = NewFileStore(open)
	assert.ErrorIs(t, err, ErrUnsafeStore, "a directory others can read is refused")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = NewFileStore(file)
	assert.Error(t, err)
	_, err = NewFileStore("")
	assert.Error(t, err)
}

func TestFileStoreCrashMidWrite(t *testing.T) {
	t.Parallel()
	for _, perFile := range []bool{false, true} {
		t.Run(fmt.Sprintf("per-file=%v", perFile), func(t *testing.T) {
			t.Parallel()
			st := newFileStore(t)
			if perFile {
				WritePerFile(st)
			}
			testCrashMidWrite(t, st)
		})
	}
}

func testCrashMidWrite(t *testing.T, st *FileStore) {
	ctx := t.Context()
	require.NoError(t, st.Put(ctx, "k", []byte("old value"), 0))

	crash := errors.New("simulated crash")
	var tmpSeen string
	st.crashHook = func(tmp string) error {
		tmpSeen = tmp
		b, err := os.ReadFile(tmp)
		require.NoError(t, err)
		_, v, err := decodeFile(b)
		require.NoError(t, err)
		assert.Equal(t, "new value", string(v), "the new value goes to a temporary file first")
		got, err := st.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, "old value", string(got), "readers see the old value during the write")
		return crash
	}
	require.ErrorIs(t, st.Put(ctx, "k", []byte("new value"), 0), crash)
	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "old value", string(got))
	_, err = os.Stat(tmpSeen)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the failed write's temporary file is removed")

	// A process killed mid-write leaves a half-written temporary file.
	st.crashHook = nil
	name, _ := st.name("k")
	leftover := filepath.Join(st.Dir(), tmpPrefix+name+"-12345")
	require.NoError(t, os.WriteFile(leftover, []byte("new va"), 0o600))
	reopened, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	got, err = reopened.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "old value", string(got), "the leftover is never read")
	_, err = os.Stat(leftover)
	require.NoError(t, err, "a fresh leftover may belong to a live writer in another process")

	old := time.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(leftover, old, old))
	_, err = NewFileStore(st.Dir())
	require.NoError(t, err)
	_, err = os.Stat(leftover)
	assert.ErrorIs(t, err, fs.ErrNotExist, "stale leftovers are cleaned up on open")

	require.NoError(t, reopened.Put(ctx, "k", []byte("new value"), 0))
	got, err = st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "new value", string(got))
}

// Expired values are removed by Sweep (and by the sweep every
// fileSweepEvery writes), live ones and values written meanwhile are kept.
func TestFileStoreSweep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	st.now = func() time.Time { return now }
	for i := range 10 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("pending/%d", i), []byte("p"), time.Minute))
	}
	require.NoError(t, st.Put(ctx, "session/kept", []byte("s"), 0))
	require.NoError(t, st.Put(ctx, "budget/later", []byte("b"), time.Hour))
	require.Len(t, valueFiles(t, st.Dir()), 12)

	now = now.Add(2 * time.Minute)
	n, err := st.Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	assert.Len(t, valueFiles(t, st.Dir()), 2, "only the live values are left")
	var keys []string
	for k, err := range st.Keys(ctx, "") {
		require.NoError(t, err)
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"budget/later", "session/kept"}, keys)

	// The periodic sweep: expired files written long ago vanish without
	// anyone reading them.
	for i := range 5 {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("old/%d", i), []byte("o"), time.Second))
	}
	now = now.Add(time.Minute)
	st.writes.Store(fileSweepPass - 1)
	require.NoError(t, st.Put(ctx, "trigger", []byte("t"), 0))
	assert.Len(t, valueFiles(t, st.Dir()), 3, "budget/later, session/kept and trigger")

	// A Get that meets an expired value removes its file.
	require.NoError(t, st.Put(ctx, "short", []byte("s"), time.Second))
	now = now.Add(time.Hour)
	_, err = st.Get(ctx, "short")
	assert.ErrorIs(t, err, ErrNotStored)
	_, err = st.Get(ctx, "budget/later")
	assert.ErrorIs(t, err, ErrNotStored)
	assert.Len(t, valueFiles(t, st.Dir()), 2, "session/kept and trigger")
}

// keysByShard returns two keys of one shard and one key of another.
func keysByShard(st *FileStore) (a, sameShard, otherShard string) {
	_, shardA := st.name("key-0")
	a = "key-0"
	for i := 1; sameShard == "" || otherShard == ""; i++ {
		k := fmt.Sprintf("key-%d", i)
		if _, sh := st.name(k); sh == shardA && sameShard == "" {
			sameShard = k
		} else if sh != shardA && otherShard == "" {
			otherShard = k
		}
	}
	return a, sameShard, otherShard
}

// While an Update of one key is in progress, keys of other shards are
// written (nothing waits on the running Update's fsync), and a key of the
// same shard waits for it.
func TestFileStoreLocksPerShard(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	a, same, other := keysByShard(st)

	entered, release := make(chan struct{}), make(chan struct{})
	var (
		mu    sync.Mutex
		order []string
	)
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	doneA := make(chan error, 1)
	go func() {
		doneA <- st.Update(ctx, a, func([]byte, bool) ([]byte, time.Duration, error) {
			close(entered)
			<-release
			record("a written")
			return []byte("a"), 0, nil
		})
	}()
	<-entered

	// Another shard goes ahead while a's Update holds its lock. Should it
	// wait, the guard below ends the test instead of hanging it.
	doneOther := make(chan error, 1)
	go func() { doneOther <- st.Put(ctx, other, []byte("other"), 0) }()
	select {
	case err := <-doneOther:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("a Put of another shard waited for a running Update")
	}

	doneSame := make(chan error, 1)
	go func() {
		doneSame <- st.Update(ctx, same, func([]byte, bool) ([]byte, time.Duration, error) {
			record("same-shard read")
			return []byte("s"), 0, nil
		})
	}()
	close(release)
	require.NoError(t, <-doneA)
	require.NoError(t, <-doneSame)
	assert.Equal(t, []string{"a written", "same-shard read"}, order, "a key of the same shard waits for the lock")
	got, err := st.Get(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, "other", string(got))
}

// A lock held by another process is waited for until the context ends.
func TestFileStoreLockWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	other, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- st.Update(t.Context(), "k", func([]byte, bool) ([]byte, time.Duration, error) {
			close(entered)
			<-release
			return []byte("v"), 0, nil
		})
	}()
	<-entered
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	// other has its own in-process mutexes: only the OS file lock is
	// shared, as between two processes.
	err = other.Put(ctx, "k", []byte("w"), 0)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	require.NoError(t, <-done)
}

// The sweep that a write starts runs after the writer released its key's
// lock: an Update that triggers it while an expired value of its own
// shard waits to be removed finishes (it once waited for itself).
func TestFileStoreSweepAfterUpdateReleasesLock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	st.now = func() time.Time { return now }
	a, same, _ := keysByShard(st)
	require.NoError(t, st.Put(ctx, same, []byte("expiring"), time.Minute))
	now = now.Add(time.Hour)
	st.writes.Store(fileSweepPass - 1)
	done := make(chan error, 1)
	go func() {
		done <- st.Update(ctx, a, func([]byte, bool) ([]byte, time.Duration, error) {
			return []byte("v"), 0, nil
		})
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the Update that started the sweep never returned")
	}
	name, _ := st.name(same)
	_, err := os.Lstat(filepath.Join(st.Dir(), name))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the sweep removed the expired value of the Update's shard")
}

// The sweep that writes run reads the directory a slice at a time: each
// slice removes at most its length of expired values, a pass ends once
// every entry was read, and the next pass waits for fileSweepPass writes.
func TestFileStoreSweepsASliceAtATime(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	st.testSweepSlice = 8
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	st.now = func() time.Time { return now }
	const expiring = 40
	for i := range expiring {
		require.NoError(t, st.Put(ctx, fmt.Sprintf("pending/%d", i), []byte("p"), time.Minute))
	}
	require.NoError(t, st.Put(ctx, "session/kept", []byte("s"), 0))
	now = now.Add(2 * time.Minute)

	removed, slices := 0, 0
	writes := int64(fileSweepEvery)
	for ; slices == 0 || st.sweep.dir != nil; writes += fileSweepEvery {
		n, err := st.sweepSlice(ctx, writes)
		require.NoError(t, err)
		assert.LessOrEqual(t, n, 8, "a slice reads 8 entries")
		removed += n
		slices++
		require.Less(t, slices, 100, "the pass ends")
	}
	assert.Equal(t, expiring, removed)
	assert.Greater(t, slices, expiring/8, "the pass took several slices")
	assert.Len(t, valueFiles(t, st.Dir()), 1, "session/kept")

	// The next pass starts fileSweepPass writes after the last one did.
	passStart := int64(fileSweepEvery)
	require.NoError(t, st.Put(ctx, "pending/late", []byte("p"), time.Second))
	now = now.Add(time.Minute)
	n, err := st.sweepSlice(ctx, passStart+fileSweepPass-fileSweepEvery)
	require.NoError(t, err)
	assert.Zero(t, n, "too early for a new pass")
	for w := passStart + fileSweepPass; n == 0 && w < passStart+2*fileSweepPass; w += fileSweepEvery {
		n, err = st.sweepSlice(ctx, w)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, n, "the new pass removed pending/late")
	assert.Len(t, valueFiles(t, st.Dir()), 1)
}

// mixValue is the i-th value of key in the tests of torn reads: its
// length varies from 1 KB to about 150 KB (a write spans many pages,
// and a reused file grows and shrinks), and every byte depends on key and
// i, so that checkMixValue tells any mix of two values apart.
func mixValue(key string, i int) []byte {
	prefix := fmt.Sprintf("%s:%d:", key, i)
	b := make([]byte, 1000+(i*7919)%150_000)
	n := copy(b, prefix)
	for j := n; j < len(b); j++ {
		b[j] = byte('a' + (i+j)%26)
	}
	return b
}

// readMixWhile starts 2 readers that Get keys in turn until stop is
// closed, each read checked to be a whole mixValue; after each whole read
// (n counts a reader's reads) it calls each, when not nil, and a reader
// stops when it returns false. Wait on the result after closing stop.
func readMixWhile(t *testing.T, st *FileStore, keys []string, stop <-chan struct{}, each func(n int) bool) *sync.WaitGroup {
	t.Helper()
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				k := keys[n%len(keys)]
				b, err := st.Get(t.Context(), k)
				if !assert.NoError(t, err) || !assert.NoError(t, checkMixValue(k, b)) {
					return
				}
				if each != nil && !each(n) {
					return
				}
			}
		}()
	}
	return &readers
}

// checkMixValue reports whether b is a whole mixValue of key.
func checkMixValue(key string, b []byte) error {
	rest, ok := strings.CutPrefix(string(b), key+":")
	if !ok {
		return fmt.Errorf("value of %s starts with %.40q", key, b)
	}
	num, _, ok := strings.Cut(rest, ":")
	i, err := strconv.Atoi(num)
	if !ok || err != nil {
		return fmt.Errorf("value of %s has no number: %.40q", key, b)
	}
	if !bytes.Equal(b, mixValue(key, i)) {
		return fmt.Errorf("value %d of %s is torn (%d bytes)", i, key, len(b))
	}
	return nil
}

// Writers replace values (reusing the files of the values they replace)
// while readers that take no key lock (Get, Keys) read them: every value
// read is whole, and Keys lists each key once.
func TestFileStoreReadersNeverSeeAMix(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	keys := []string{"mix/a", "mix/b", "mix/c", "mix/d"}
	for _, k := range keys {
		require.NoError(t, st.Put(ctx, k, mixValue(k, 0), 0))
	}
	const rounds = 150
	var writers sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 1; i <= rounds; i++ {
				for j, k := range keys {
					if (i+j)%2 == w {
						continue
					}
					var err error
					if i%3 == 0 {
						err = st.Put(ctx, k, mixValue(k, i), 0)
					} else {
						err = st.Update(ctx, k, func(old []byte, found bool) ([]byte, time.Duration, error) {
							if err := checkMixValue(k, old); !found || err != nil {
								return nil, 0, fmt.Errorf("update read %v, found %v", err, found)
							}
							return mixValue(k, i), 0, nil
						})
					}
					if !assert.NoError(t, err) {
						return
					}
				}
			}
		}()
	}
	var reads atomic.Int64
	readers := readMixWhile(t, st, keys, stop, func(n int) bool {
		reads.Add(1)
		if n%16 != 0 {
			return true
		}
		var listed []string
		for k, err := range st.Keys(ctx, "mix/") {
			if !assert.NoError(t, err) {
				return false
			}
			listed = append(listed, k)
		}
		return assert.Equal(t, keys, listed)
	})
	writers.Wait()
	close(stop)
	readers.Wait()
	t.Logf("%d whole reads during %d writes", reads.Load(), rounds*len(keys))
	assert.Positive(t, reads.Load())
}

// spareFiles lists the temporary files of a file store's directory: its
// spares, and leftovers.
func spareFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// The file of a replaced or deleted value is reused by a later write,
// unless a reader holds it, it is of format version 1, or the pool of
// spares is full; a spare whose name was removed meanwhile is replaced by
// a new file.
func TestFileStoreReusesFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	newStore := func(t *testing.T) *FileStore {
		st := newFileStore(t)
		if !st.reuse {
			t.Skip("files are reused on Linux only")
		}
		// One spare made at a time, so that the test counts the files
		// values leave (TestFileStorePreparesSpares covers batches).
		st.testSpareBatch = 1
		return st
	}
	fileOf := func(t *testing.T, st *FileStore, key string) os.FileInfo {
		t.Helper()
		name, _ := st.name(key)
		fi, err := os.Lstat(filepath.Join(st.Dir(), name))
		require.NoError(t, err)
		return fi
	}
	get := func(t *testing.T, st *FileStore, key string) string {
		t.Helper()
		b, err := st.Get(ctx, key)
		require.NoError(t, err)
		return string(b)
	}

	t.Run("replaced and deleted values", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		require.NoError(t, st.Put(ctx, "k", []byte("first, a longer value"), 0))
		first := fileOf(t, st, "k")
		require.NoError(t, st.Put(ctx, "k", []byte("second"), 0))
		assert.Len(t, spareFiles(t, st.Dir()), 1, "the first value's file is a spare")
		require.NoError(t, st.Put(ctx, "k", []byte("third"), 0))
		assert.True(t, os.SameFile(first, fileOf(t, st, "k")), "the third value is in the first one's file")
		assert.Equal(t, "third", get(t, st, "k"), "cut to the new value's length")
		require.NoError(t, st.Delete(ctx, "k"))
		_, err := st.Get(ctx, "k")
		assert.ErrorIs(t, err, ErrNotStored)
		assert.Len(t, spareFiles(t, st.Dir()), 2, "the deleted value's file is a spare")
		require.NoError(t, st.Put(ctx, "other", []byte("o"), 0))
		assert.Len(t, spareFiles(t, st.Dir()), 1, "a spare serves any key")
		assert.Equal(t, "o", get(t, st, "other"))
	})

	t.Run("a file a reader holds", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		require.NoError(t, st.Put(ctx, "k", []byte("old"), 0))
		name, _ := st.name("k")
		f, err := os.Open(filepath.Join(st.Dir(), name))
		require.NoError(t, err)
		defer f.Close()
		ok, err := tryLockFile(f, false)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, st.Put(ctx, "k", []byte("new"), 0))
		assert.Empty(t, spareFiles(t, st.Dir()), "the held file is not a spare")
		require.NoError(t, st.Put(ctx, "k", []byte("newer"), 0))
		b, err := io.ReadAll(f)
		require.NoError(t, err)
		_, v, err := decodeFile(b)
		require.NoError(t, err)
		assert.Equal(t, "old", string(v), "the reader's file is unchanged")
	})

	t.Run("format version 1", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		path := plant(t, st.Dir(), "k", []byte("v1 value"))
		require.NoError(t, os.WriteFile(path, encodeOldFile(fileMagicV1, "k", []byte("v1 value"), time.Time{}), 0o600))
		assert.Equal(t, "v1 value", get(t, st, "k"), "version 1 is read")
		require.NoError(t, st.Put(ctx, "k", []byte("v2 value"), 0))
		assert.Empty(t, spareFiles(t, st.Dir()), "a version 1 file is never reused")
	})

	t.Run("bounded pool", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		for i := range maxSpares + 8 {
			require.NoError(t, st.Put(ctx, fmt.Sprintf("k/%d", i), []byte("v"), 0))
		}
		for i := range maxSpares + 8 {
			require.NoError(t, st.Delete(ctx, fmt.Sprintf("k/%d", i)))
		}
		assert.Len(t, spareFiles(t, st.Dir()), maxSpares)
	})

	t.Run("stale spares", func(t *testing.T) {
		t.Parallel()
		st := newStore(t)
		require.NoError(t, st.Put(ctx, "k", []byte("1"), 0))
		require.NoError(t, st.Put(ctx, "k", []byte("2"), 0))
		spares := spareFiles(t, st.Dir())
		require.Len(t, spares, 1)
		leftover := filepath.Join(st.Dir(), tmpPrefix+"crashed")
		require.NoError(t, os.WriteFile(leftover, []byte("x"), 0o600))
		old := time.Now().Add(-2 * staleTemp)
		require.NoError(t, os.Chtimes(spares[0], old, old))
		require.NoError(t, os.Chtimes(leftover, old, old))
		_, err := NewFileStore(st.Dir()) // another process opening the store
		require.NoError(t, err)
		assert.Equal(t, spares, spareFiles(t, st.Dir()), "a live store's spare stays, the leftover goes")

		// A spare whose name went anyway is replaced by a new file.
		require.NoError(t, os.Remove(spares[0]))
		require.NoError(t, st.Put(ctx, "k", []byte("3"), 0))
		assert.Equal(t, "3", get(t, st, "k"))
	})
}

// A reader without the key's lock that keeps meeting a file locked by a
// writer (the file it opened was reused, again and again) reads under the
// key's lock in the end.
func TestFileStoreReaderFallsBackToTheKeyLock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "k", []byte("value"), 0))
	name, shard := st.name("k")
	f, err := os.Open(filepath.Join(st.Dir(), name))
	require.NoError(t, err)
	defer f.Close()
	ok, err := tryLockFile(f, true)
	require.NoError(t, err)
	require.True(t, ok)

	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "value", string(got))
	for k, err := range st.Keys(ctx, "") {
		require.NoError(t, err)
		assert.Equal(t, "k", k)
	}

	// With the key's lock taken by another process, it waits for it.
	other, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	unlock, err := other.lock(ctx, shard)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = st.Get(short, "k")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	unlock()
}

// TestFileStorePreparesSpares: on Linux, a write of a new key that finds
// no spare makes spareBatch of them at once, each of spareSize bytes and
// locked against other writers and the stale sweep; the next new keys use
// them without creating a file, and every value stays readable by a store
// opened afresh on the directory.
func TestFileStorePreparesSpares(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	if !st.reuse || !preparesSpares {
		t.Skip("spares are prepared in batches on Linux only")
	}
	ctx := t.Context()
	spares := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(st.Dir(), tmpPrefix+"*"))
		require.NoError(t, err)
		return m
	}
	require.NoError(t, st.Put(ctx, "k/0", []byte("v0"), time.Hour))
	left := spares()
	require.Len(t, left, spareBatch-1, "the spares the first write did not use")
	for _, path := range left {
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.Equal(t, int64(spareSize), fi.Size())
		assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
		f, err := os.Open(path)
		require.NoError(t, err)
		free, err := tryLockFile(f, true)
		require.NoError(t, err)
		assert.False(t, free, "a prepared spare is locked by its store")
		require.NoError(t, f.Close())
	}
	for i := 1; i < spareBatch; i++ {
		require.NoError(t, st.Put(ctx, "k/"+strconv.Itoa(i), []byte("v"+strconv.Itoa(i)), time.Hour))
		assert.Len(t, spares(), spareBatch-1-i, "write %d used a prepared spare", i)
	}
	require.NoError(t, st.Update(ctx, "k/new", func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte("updated"), time.Hour, nil
	}))
	assert.Len(t, spares(), spareBatch-1, "a write that found none made a batch again")
	again, err := NewFileStore(st.Dir())
	require.NoError(t, err)
	for i := range spareBatch {
		got, err := again.Get(ctx, "k/"+strconv.Itoa(i))
		require.NoError(t, err)
		assert.Equal(t, "v"+strconv.Itoa(i), string(got))
	}
	got, err := again.Get(ctx, "k/new")
	require.NoError(t, err)
	assert.Equal(t, "updated", string(got))
}

// Writes of new keys that find no spare at the same time make batches of
// spares that fit in the pool together: none is made only to be removed
// for want of room (on the code before, each made a whole batch and 8
// writers starting together removed 99 to 203 of them).
func TestFileStoreMakesNoSpareForNothing(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	if !st.reuse || !preparesSpares {
		t.Skip("spares are prepared in batches on Linux only")
	}
	ctx := t.Context()
	const writers, keys = 8, 3 * spareBatch
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			<-start
			for k := range keys {
				err := st.Update(ctx, fmt.Sprintf("w%d/k%d", w, k), func([]byte, bool) ([]byte, time.Duration, error) {
					return []byte("v"), time.Hour, nil
				})
				assert.NoError(t, err)
			}
		})
	}
	close(start)
	wg.Wait()
	assert.Zero(t, st.spares.discarded.Load(), "spares removed for want of room")
	m, err := filepath.Glob(filepath.Join(st.Dir(), tmpPrefix+"*"))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(m), maxSpares, "spares left after %d new keys", writers*keys)
	assert.Len(t, valueFiles(t, st.Dir()), writers*keys)
}

// TestFileStoreNamesANewerFormat: a value file a later release of this
// package wrote (its magic "psd2store" with a higher number) is refused
// as ErrCorrupt with an error that says a newer release wrote it, so an
// operator running an older psd2 on the directory learns why; a foreign
// file keeps the plain "not in the store's format".
func TestFileStoreNamesANewerFormat(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "a", []byte("a's value"), 0))
	name, _ := st.name("a")
	path := filepath.Join(st.Dir(), name)
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	newer := []byte(fileMagic)
	newer[len(newer)-2]++ // psd2store3 -> psd2store4
	copy(content, newer)
	require.NoError(t, os.WriteFile(path, content, 0o600))
	_, err = st.Get(ctx, "a")
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "newer release")

	require.NoError(t, os.WriteFile(path, []byte("psd2storeX\nsomething else entirely"), 0o600))
	_, err = st.Get(ctx, "a")
	require.ErrorIs(t, err, ErrCorrupt)
	assert.NotContains(t, err.Error(), "newer release")
}
