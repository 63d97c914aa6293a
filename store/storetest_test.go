package store_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/store/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	t.Parallel()
	shared := store.NewMemoryStore()
	storetest.Run(t, func(*testing.T) store.Store { return shared })
}

func TestZeroMemoryStoreConformance(t *testing.T) {
	t.Parallel()
	var shared store.MemoryStore // the zero value is ready
	storetest.Run(t, func(*testing.T) store.Store { return &shared })
}

// Two FileStores on one directory are two clients as two processes would
// be: each has its own in-process locks, so only the OS file locks keep
// them apart.
func TestFileStoreConformance(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := store.NewFileStore(dir)
		require.NoError(t, err)
		return st
	})
}

// The write path of platforms other than Linux (each write syncs its own
// file and the directory, no file reused), checked on every platform.
func TestFileStorePerFileConformance(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := store.NewFileStore(dir)
		require.NoError(t, err)
		store.WritePerFile(st)
		return st
	})
}
