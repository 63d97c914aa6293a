package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestUnreadableStoreIsNoAllClear: a store directory, or one value file
// of it, that psd2 may not read (mode 000) ends journal list and
// reconcile with exit status 3 and the path named, never a listing
// without what it could not read.
func TestUnreadableStoreIsNoAllClear(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: mode 000 does not keep root from reading a file or listing a directory")
	}
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	file := valueFileOf(t, dir, "reconcile/account/"+string(reconcileAccount))

	for _, c := range []struct{ name, path string }{{"a value file", file}, {"the directory", dir}} {
		require.NoError(t, os.Chmod(c.path, 0))
		for _, args := range [][]string{{"journal", "list", "-store", dir}, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)} {
			out, errOut, code := psd2(t, args...)
			assert.Equal(t, exitRuntime, code, "%s, %v: %s", c.name, args, errOut)
			assert.NotContains(t, out, "0 payment(s)", "%s, %v", c.name, args)
			assert.Contains(t, errOut, c.path, "%s, %v", c.name, args)
			assert.Contains(t, errOut, "permission denied", "%s, %v", c.name, args)
		}
		mode := os.FileMode(0o600)
		if c.path == dir {
			mode = 0o700
		}
		require.NoError(t, os.Chmod(c.path, mode))
	}
}
