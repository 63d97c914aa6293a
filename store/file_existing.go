package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrNoFileStore is matched (errors.Is) by the error of [OpenFileStore]
// for a path that holds no file store: missing, not a directory, a
// directory no FileStore ever wrote to, or one holding files a FileStore
// never writes.
var ErrNoFileStore = errors.New("store: no file store here")

// OpenFileStore opens the existing file store in dir, for a tool that
// reads the state a service keeps there (an operator's, such as
// cmd/psd2): unlike [NewFileStore] it never creates the directory, so a
// mistyped path is an error rather than a new, empty store that reads as
// "nothing to do". dir must be a directory a FileStore has written to
// (it holds the lock files every write leaves) and hold nothing else
// than the files a FileStore writes; otherwise the error matches
// [ErrNoFileStore], whatever the directory's mode and owner. The rules
// of NewFileStore apply to a directory that holds a file store (an
// [*UnsafeStoreError]), and to a symbolic link.
func OpenFileStore(dir string) (*FileStore, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: no directory given", ErrNoFileStore)
	}
	if err := platformSupported(); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoFileStore, dir)
	case err != nil:
		return nil, fmt.Errorf("store: opening file store: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		// Refused (a symbolic link), before anything is read through it.
		if err := checkDir(dir, os.Geteuid()); err != nil {
			return nil, err
		}
	case !fi.IsDir():
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNoFileStore, dir)
	}
	// What the directory holds first, its mode and owner after: a
	// directory that holds no file store (mkdir's 0755, /tmp, another
	// user's home) is named as such, not as unsafe, which would send the
	// operator to chmod a directory that is not the store.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("store: opening file store: %w", err)
	}
	written := false
	for _, e := range entries {
		name := e.Name()
		if _, ok := shardOfName(name); ok || isLockName(name) {
			written = true
			continue
		}
		if strings.HasPrefix(name, tmpPrefix) || strings.HasPrefix(name, takePrefix) {
			continue
		}
		return nil, fmt.Errorf("%w: %s holds %q, which a file store never writes", ErrNoFileStore, dir, name)
	}
	if !written {
		return nil, fmt.Errorf("%w: %s is empty (no file store ever wrote to it)", ErrNoFileStore, dir)
	}
	if err := checkDir(dir, os.Geteuid()); err != nil {
		return nil, err
	}
	return openFileStore(dir, os.Geteuid())
}

// isLockName reports whether name is the name of a shard's lock file.
func isLockName(name string) bool {
	for shard := range lockShards {
		if name == lockName(shard) {
			return true
		}
	}
	return false
}
