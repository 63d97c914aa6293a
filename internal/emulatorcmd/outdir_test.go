//go:build unix

package emulatorcmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWritePEMDoesNotFollowSymlinks: a symbolic link planted where a key
// file goes is replaced, and its target is left as it was.
func TestWritePEMDoesNotFollowSymlinks(t *testing.T) {
	t.Parallel()
	dir, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep me"), 0o644))
	key := filepath.Join(dir, "tpp-key.pem")
	require.NoError(t, os.Symlink(victim, key))

	require.NoError(t, writePEM(key, "PRIVATE KEY", []byte{1, 2, 3}, 0o600))
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(got), "the link's target is untouched")
	fi, err := os.Lstat(key)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the link was replaced by the file")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	left, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file left behind")
}
