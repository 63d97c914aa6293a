//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// nobody is the user and group id asAnotherUser runs psd2 as.
const nobody = 65534

// asAnotherUser, for a test run as root, returns a runner of psd2 as the
// user nobody (a copy of the binary that user may run), a store path in
// a directory that user may enter, and handOver, which gives that user
// the store once the test has written it (the file store refuses one
// another user owns).
func asAnotherUser(t *testing.T) (run func(*testing.T, ...string) (string, string, int), dir string, handOver func(string)) {
	t.Helper()
	base, err := os.MkdirTemp("", "psd2-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	b, err := os.ReadFile(bin)
	require.NoError(t, err)
	exe := filepath.Join(base, "psd2")
	require.NoError(t, os.WriteFile(exe, b, 0o755))
	run = func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), exe, args...)
		cmd.Env = append(cleanEnv(), "HOME="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		return runCmd(t, cmd)
	}
	handOver = func(dir string) {
		require.NoError(t, filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		}))
	}
	return run, filepath.Join(base, "store"), handOver
}
