//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutRefusesUnsafeDirectories: -out refuses a directory others can
// write to, a symbolic link, and (where the test can arrange one) a
// directory of another user; nothing is written there.
func TestOutRefusesUnsafeDirectories(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	require.NoError(t, os.Mkdir(shared, 0o700))
	require.NoError(t, os.Chmod(shared, 0o777))
	groupW := filepath.Join(base, "group")
	require.NoError(t, os.Mkdir(groupW, 0o700))
	require.NoError(t, os.Chmod(groupW, 0o770))
	mine := filepath.Join(base, "mine")
	require.NoError(t, os.Mkdir(mine, 0o700))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(mine, link))
	for _, dir := range []string{shared, groupW, link} {
		err := run(t.Context(), []string{"-out", dir}, io.Discard, io.Discard)
		require.Error(t, err, dir)
		assert.NoFileExists(t, filepath.Join(dir, "tpp-key.pem"))
		assert.NoFileExists(t, filepath.Join(dir, "ca.pem"))
	}
	if os.Geteuid() == 0 {
		// root can give a directory to another user.
		other := filepath.Join(base, "other")
		require.NoError(t, os.Mkdir(other, 0o700))
		require.NoError(t, os.Chown(other, 12345, 12345))
		err := run(t.Context(), []string{"-out", other}, io.Discard, io.Discard)
		assert.ErrorContains(t, err, "another user")
	}
}
