//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package emulatorcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockOut takes the lock of the -out directory (an exclusive flock on
// LockFile in it, never through a symbolic link), held until the
// returned function is called. A directory another running emulator
// holds is refused: its ca.pem, TPP credentials and control.json are
// that emulator's, and writing this one's over them would leave the
// running one's users with another bank's CA, a TPP it does not know and
// another control API. The system drops the lock when the process ends,
// however it ends.
func lockOut(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("-out %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("-out %s is in use by another emulator that is still running (its ca.pem, TPP credentials and %s are that emulator's); stop it, or give this one an -out of its own", dir, ControlFile)
		}
		return nil, fmt.Errorf("-out %s: locking %s: %w", dir, LockFile, err)
	}
	return func() { _ = f.Close() }, nil
}
