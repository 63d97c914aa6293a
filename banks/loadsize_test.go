package banks_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
)

// TestLoadBounded: Load reads at most 4 MiB of the file. On the code
// before, it read the file whole (os.ReadFile): a 64 MiB (sparse) file
// cost 64 MiB and its scan, and a device such as /dev/zero never ended.
func TestLoadBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "banks.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(64<<20))
	require.NoError(t, f.Close())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = banks.Load(big)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("Load of a 64 MiB file: %d MiB allocated, %v", alloc>>20, err)
	require.Error(t, err)
	assert.Less(t, alloc, uint64(16<<20), "Load read a 64 MiB file whole")
}
