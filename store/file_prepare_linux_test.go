//go:build linux && !arm

package store

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileStorePreparesSparesTogether: a write that makes a batch of
// spares starts the write-back of every spare before it waits for any
// (on the code before, it wrote back and waited for each in turn: as
// many waits for the disk as spares). Not parallel: it replaces
// syncFileRange for the package.
func TestFileStorePreparesSparesTogether(t *testing.T) {
	st := newFileStore(t)
	var mu sync.Mutex
	var calls []int // flags, in order
	syncFileRange = func(fd int, off, n int64, flags int) error {
		mu.Lock()
		calls = append(calls, flags)
		mu.Unlock()
		return nil
	}
	t.Cleanup(func() { syncFileRange = defaultSyncFileRange })
	require.NoError(t, st.Update(t.Context(), "k", func([]byte, bool) ([]byte, time.Duration, error) {
		return []byte("v"), time.Hour, nil
	}))
	const wait = 1 | 4 // SYNC_FILE_RANGE_WAIT_BEFORE, SYNC_FILE_RANGE_WAIT_AFTER
	require.Len(t, calls, 2*spareBatch, "each spare of the batch written back, then waited for")
	first := slices.IndexFunc(calls, func(f int) bool { return f&wait != 0 })
	assert.Equal(t, spareBatch, first, "write-backs started before the first wait: %v", calls)
	for _, f := range calls[first:] {
		assert.NotZero(t, f&wait, "a write-back started after the waits began: %v", calls)
	}
}

// BenchmarkFileStorePrepareSpares measures what preparing a batch of
// spareBatch spares costs the write that makes it, with the write-backs
// started together and then waited for (overlapped, the store's way) and
// with each written back and waited for in turn (one-by-one, the way
// before), alternately: per batch, the wall time (<way>-wall-us) and the
// process's CPU time (<way>-cpu-us).
func BenchmarkFileStorePrepareSpares(b *testing.B) {
	st := newFileStore(b)
	oneByOne := func(fd int, off, n int64, flags int) error {
		if flags == 2 { // SYNC_FILE_RANGE_WRITE alone: the first pass
			return nil
		}
		return defaultSyncFileRange(fd, off, n, flags)
	}
	b.Cleanup(func() { syncFileRange = defaultSyncFileRange })
	content := make([]byte, spareSize)
	copy(content, fileMagic)
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for way, f := range []func(int, int64, int64, int) error{defaultSyncFileRange, oneByOne} {
			spares := make([]*spare, spareBatch)
			for i := range spares {
				sp, err := st.newSpare()
				require.NoError(b, err)
				require.NoError(b, sp.fill(content))
				spares[i] = sp
			}
			syncFileRange = f
			c0, t0 := processCPU(), time.Now()
			require.NoError(b, prepareSpares(spares))
			wall[way] += time.Since(t0)
			cpu[way] += processCPU() - c0
			// Kept, not removed: files removed near the next batch would
			// make its creation slower (see makeSpares).
			for _, sp := range spares {
				_ = sp.f.Close()
			}
		}
	}
	for way, name := range []string{"overlapped", "one-by-one"} {
		b.ReportMetric(float64(wall[way].Microseconds())/float64(b.N), name+"-wall-us")
		b.ReportMetric(float64(cpu[way].Microseconds())/float64(b.N), name+"-cpu-us")
	}
}
