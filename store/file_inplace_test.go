package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// count is an Update function that makes the value one byte longer.
func count(old []byte, found bool) ([]byte, time.Duration, error) {
	n := 0
	if found {
		n = len(old)
	}
	return []byte(strings.Repeat("x", n+1)), time.Hour, nil
}

// headerOf reads the header of key's file.
func headerOf(t *testing.T, st *FileStore, key string) (fileHeader, os.FileInfo) {
	t.Helper()
	name, _ := st.name(key)
	path := filepath.Join(st.Dir(), name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	h, _, err := decodeFile(b)
	require.NoError(t, err)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return h, fi
}

// Update writes a value that fits into the other slot of the key's file:
// same file, same size, the sequence number one up, the slots taking
// turns, nothing else written in the directory.
func TestFileStoreUpdatesInPlace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Update(ctx, "budget", count))
	first, fi := headerOf(t, st, "budget")
	require.Positive(t, first.slotSize)
	entries, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	for i := 2; i <= 5; i++ {
		require.NoError(t, st.Update(ctx, "budget", count))
		h, now := headerOf(t, st, "budget")
		assert.True(t, os.SameFile(fi, now), "update %d is in the same file", i)
		assert.Equal(t, fi.Size(), now.Size())
		assert.Equal(t, first.seq+uint64(i-1), h.seq)
		assert.Equal(t, (first.slot+i-1)%2, h.slot, "the slots take turns")
		got, err := st.Get(ctx, "budget")
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat("x", i), string(got))
	}
	after, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	assert.Equal(t, len(entries), len(after), "no temporary file or spare")
}

// A value that outgrows its slot is written to a new file with larger
// slots; later updates are in place again.
func TestFileStoreUpdateOutgrowsItsSlot(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "k", []byte("small"), 0))
	small, _ := headerOf(t, st, "k")
	big := strings.Repeat("b", 4*small.slotSize)
	require.NoError(t, st.Update(ctx, "k", func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte(big), 0, nil
	}))
	h, fi := headerOf(t, st, "k")
	assert.Greater(t, h.slotSize, len(big))
	require.NoError(t, st.Update(ctx, "k", func(old []byte, _ bool) ([]byte, time.Duration, error) {
		return append(old[:len(old)-1:len(old)-1], 'c'), 0, nil
	}))
	h2, fi2 := headerOf(t, st, "k")
	assert.True(t, os.SameFile(fi, fi2))
	assert.Equal(t, h.seq+1, h2.seq)
	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, big[:len(big)-1]+"c", string(got))
}

// A slot cut short by a crash (its CRC fails) is not read: the other
// slot, the previous value, is the file's value. With both slots broken
// the entry is ErrCorrupt.
func TestFileStoreTornSlot(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Update(ctx, "k", count))
	require.NoError(t, st.Update(ctx, "k", count))
	h, _ := headerOf(t, st, "k")
	name, _ := st.name("k")
	path := filepath.Join(st.Dir(), name)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	at := int64(slotsAt + h.slot*h.slotSize)
	// The last bytes of the new value never reached the disk.
	_, err = f.WriteAt([]byte{0, 0}, at+slotHeaderLen+contentHeaderLen+int64(len("k"))+1)
	require.NoError(t, err)
	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got), "the previous value")

	// The next update writes over the torn slot, the one that is not
	// current.
	require.NoError(t, st.Update(ctx, "k", count))
	got, err = st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "xx", string(got))

	for i := range 2 {
		_, err = f.WriteAt([]byte{0xff}, int64(slotsAt+i*h.slotSize)+slotHeaderLen)
		require.NoError(t, err)
	}
	_, err = st.Get(ctx, "k")
	assert.ErrorIs(t, err, ErrCorrupt)
}

// A write in place that fails before its sync (a crash) leaves the
// previous value the file's value.
func TestFileStoreInPlaceCrashKeepsThePreviousValue(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Update(ctx, "k", count))
	crash := errors.New("simulated crash")
	st.crashHook = func(string) error { return crash }
	require.ErrorIs(t, st.Update(ctx, "k", count), crash)
	st.crashHook = nil
	got, err := st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	require.NoError(t, st.Update(ctx, "k", count))
	got, err = st.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "xx", string(got))
}

// A write in place that failed, whose undo cannot take the file's lock
// (another process hung while holding it), ends all the same: the undo
// waits at most undoWait (shorter here). On the code before, it waited
// for the lock on context.Background(), for ever.
func TestFileStoreInPlaceUndoIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background() // no deadline
	st := newFileStore(t)
	st.testUndoWait = 100 * time.Millisecond
	require.NoError(t, st.Update(ctx, "k", count))
	crash := errors.New("simulated failure")
	var holder *os.File
	st.crashHook = func(path string) error {
		f, err := os.Open(path) // another open file: its flock excludes the store's
		if err != nil {
			return err
		}
		holder = f
		if ok, err := tryLockFile(f, true); !ok || err != nil {
			return fmt.Errorf("locking: %v %w", ok, err)
		}
		return crash
	}
	ended := make(chan error, 1)
	go func() { ended <- st.Update(ctx, "k", count) }()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, crash)
	case <-time.After(time.Minute):
		t.Fatal("the undo waits for the lock for ever")
	}
	require.NotNil(t, holder)
	require.NoError(t, unlockFile(holder))
	require.NoError(t, holder.Close())
}

// Files of formats 1 and 2 are read, and the first Update writes a
// version 3 file that later updates write in place.
func TestFileStoreUpdateUpgradesOlderFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, magic := range []string{fileMagicV1, fileMagicV2} {
		st := newFileStore(t)
		path := plant(t, st.Dir(), "k", nil)
		require.NoError(t, os.WriteFile(path, encodeOldFile(magic, "k", []byte("x"), time.Time{}), 0o600))
		require.NoError(t, st.Update(ctx, "k", count))
		h, fi := headerOf(t, st, "k")
		assert.Positive(t, h.slotSize, "version 3 after the update")
		require.NoError(t, st.Update(ctx, "k", count))
		_, fi2 := headerOf(t, st, "k")
		assert.True(t, os.SameFile(fi, fi2))
		got, err := st.Get(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, "xxx", string(got))
	}
}

// A writer in place waits for a reader's shared flock; its context ends
// the wait, and the value is then unchanged.
func TestFileStoreInPlaceWaitsForReaders(t *testing.T) {
	t.Parallel()
	st := newFileStore(t)
	if !st.reuse {
		t.Skip("flock(2) readers: Unix only")
	}
	require.NoError(t, st.Update(t.Context(), "k", count))
	name, _ := st.name("k")
	f, err := os.Open(filepath.Join(st.Dir(), name))
	require.NoError(t, err)
	ok, err := tryLockFile(f, false)
	require.NoError(t, err)
	require.True(t, ok)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, st.Update(ctx, "k", count), context.DeadlineExceeded)
	require.NoError(t, f.Close()) // releases the flock
	got, err := st.Get(t.Context(), "k")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	require.NoError(t, st.Update(t.Context(), "k", count))
	got, err = st.Get(t.Context(), "k")
	require.NoError(t, err)
	assert.Equal(t, "xx", string(got))
}

// A slot size a file declares is checked before it is used.
func TestFileStoreRefusesOddSlots(t *testing.T) {
	t.Parallel()
	good := encodeFile("k", []byte("v"), time.Time{})
	for name, mutate := range map[string]func([]byte) []byte{
		"cut short":      func(b []byte) []byte { return b[:len(b)-1] },
		"slot size 0":    func(b []byte) []byte { b[len(fileMagic)+2], b[len(fileMagic)+3] = 0, 0; return b },
		"slot size huge": func(b []byte) []byte { b[len(fileMagic)] = 0xff; return b },
		"empty slots":    func(b []byte) []byte { clear(b[slotsAt:]); return b },
	} {
		_, _, err := decodeFile(mutate(append([]byte(nil), good...)))
		assert.ErrorIs(t, err, ErrCorrupt, name)
	}
	h, v, err := decodeFile(good)
	require.NoError(t, err)
	assert.Equal(t, "k", h.key)
	assert.Equal(t, "v", string(v))
}

// Only writes of new files count towards the sweep: an Update written in
// place adds nothing to the directory and costs no sweep.
func TestFileStoreInPlaceUpdatesDoNotSweep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	st.now = func() time.Time { return now }
	require.NoError(t, st.Put(ctx, "expiring", []byte("e"), time.Minute))
	require.NoError(t, st.Update(ctx, "budget", count))
	now = now.Add(time.Hour)
	before := st.writes.Load()
	st.writes.Store(fileSweepPass - 1)
	require.NoError(t, st.Update(ctx, "budget", count))
	assert.Equal(t, int64(fileSweepPass-1), st.writes.Load(), "not counted")
	assert.Len(t, valueFiles(t, st.Dir()), 2, "no sweep ran")
	require.NoError(t, st.Put(ctx, "new", []byte("n"), 0))
	assert.Len(t, valueFiles(t, st.Dir()), 2, "the new file's write swept the expired value")
	assert.Equal(t, int64(2), before, "the Put and the first Update (a new file) counted")
}

// decodeFile never panics and never returns a value larger than the
// file, whatever the bytes.
func FuzzDecodeFile(f *testing.F) {
	f.Add(encodeFile("k", []byte("value"), time.Time{}))
	f.Add(encodeFile("budget/x", []byte("[1,2,3]"), time.Unix(1, 0)))
	f.Add(encodeOldFile(fileMagicV2, "k", []byte("v2"), time.Time{}))
	f.Add(encodeOldFile(fileMagicV1, "k", []byte("v1"), time.Time{}))
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, v, err := decodeFile(b)
		if err != nil {
			return
		}
		if len(v)+len(h.key) > len(b) {
			t.Fatalf("value and key of %d bytes from a file of %d", len(v), len(b))
		}
	})
}
