//go:build !unix || aix || (solaris && !illumos)

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// platformSupported refuses the FileStore on this platform: it lacks
// flock(2) (or O_NOFOLLOW and POSIX permissions), so the store could not
// keep its guarantees across processes (see [FileStore]).
func platformSupported() error {
	return fmt.Errorf("store: file store on %s: %w (needs flock, O_NOFOLLOW and POSIX permissions)", runtime.GOOS, errors.ErrUnsupported)
}

// openNoFollow is never reached: NewFileStore refuses first.
func openNoFollow(string, int, fs.FileMode) (*os.File, error) { return nil, errors.ErrUnsupported }

// ownedBy is never reached: NewFileStore refuses first.
func ownedBy(fs.FileInfo, int) bool { return false }

// openLockFile is never reached: NewFileStore refuses first.
func openLockFile(string, func(*os.File) error) (*os.File, error) {
	return nil, errors.ErrUnsupported
}

// tryLockFile is never reached: NewFileStore refuses first.
func tryLockFile(*os.File, bool) (bool, error) { return false, errors.ErrUnsupported }

// unlockFile is never reached: NewFileStore refuses first.
func unlockFile(*os.File) error { return errors.ErrUnsupported }

func lockOpenFile(context.Context, *os.File) error { return errors.ErrUnsupported }
