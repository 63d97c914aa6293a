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
// without what it could not read. Mode 000 does not keep root from
// reading, so under root (as CI runs) psd2 runs as another user
// (asAnotherUser) over a store that user owns.
func TestUnreadableStoreIsNoAllClear(t *testing.T) {
	t.Parallel()
	run, dir := psd2, fileStoreDir(t)
	handOver := func(string) {}
	if os.Geteuid() == 0 {
		run, dir, handOver = asAnotherUser(t)
	}
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	handOver(dir)
	file := valueFileOf(t, dir, "reconcile/account/"+string(reconcileAccount))

	// Readable before its mode is taken away: the user psd2 runs as
	// reads the payments reconcile keeps there.
	out, errOut, code := run(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "pay-settled")
	for _, c := range []struct{ name, path string }{{"a value file", file}, {"the directory", dir}} {
		require.NoError(t, os.Chmod(c.path, 0))
		for _, args := range [][]string{{"journal", "list", "-store", dir}, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)} {
			out, errOut, code := run(t, args...)
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
