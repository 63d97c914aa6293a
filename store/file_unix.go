//go:build unix && !aix && (!solaris || illumos)

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Lock polling: flock is tried without blocking, so that a cancelled
// context ends the wait; between tries the store sleeps from lockPollMin,
// doubling up to lockPollMax.
const (
	lockPollMin = 50 * time.Microsecond
	lockPollMax = 5 * time.Millisecond
)

// platformSupported reports that this platform has what FileStore needs.
func platformSupported() error { return nil }

// openNoFollow opens path with flag and perm, failing instead of following
// a symbolic link in its last element. It opens with open(2) and wraps
// the descriptor with os.NewFile: os.OpenFile would also try to register
// the regular file with the network poller, which Linux refuses, at the
// cost of four more system calls on every open of the store's files (a
// tenth of an Update's CPU time in the storeratio harness's profile).
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.EINTR {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
}

// ownedBy reports whether fi belongs to the user uid.
func ownedBy(fi fs.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int64(st.Uid) == int64(uid)
}

// openLockFile opens the lock file path (created with mode 0600 if
// missing, never through a link) for flock(2). check vets the opened
// file (a regular file of the store's user).
func openLockFile(path string, check func(*os.File) error) (*os.File, error) {
	f, err := openNoFollow(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, openError("lock", path, err)
	}
	if err := check(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// tryLockFile tries to take a flock(2) on f without waiting: shared for
// a reader, exclusive for the writer that reuses the file. It reports
// false when another open file holds a conflicting lock.
func tryLockFile(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, fmt.Errorf("store: file store lock: %w", err)
		}
	}
}

// unlockFile releases the flock(2) f holds, if any.
func unlockFile(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		return fmt.Errorf("store: file store unlock: %w", err)
	}
	return nil
}

// lockOpenFile takes an exclusive flock(2) on f, trying without blocking
// so that ctx can end the wait (a lock file's other holders, a value
// file's readers).
func lockOpenFile(ctx context.Context, f *os.File) error {
	for wait := lockPollMin; ; wait = min(2*wait, lockPollMax) {
		ok, err := tryLockFile(f, true)
		if err != nil || ok {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
