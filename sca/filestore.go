package sca

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// File store layout: one file per key, named by the SHA-256 of the key, so
// no key can name a path outside the directory. New content is written to a
// temporary file, synced, and renamed over the old file; the directory is
// synced after the rename. Temporary names start with tmpPrefix and are
// never read as values. Every key belongs to one of lockShards shards; the
// shard's lock file (lockPrefix and two hex digits) is what processes lock.
const (
	valueSuffix = ".val"
	tmpPrefix   = ".tmp-"
	takePrefix  = ".take-"
	lockPrefix  = ".lock-"
	// staleTemp is the age after which NewFileStore removes leftover
	// temporary files of writers that crashed.
	staleTemp = time.Hour
	// maxValue bounds a value read from disk.
	maxValue = 16 << 20
	// lockShards is the number of lock shards: keys of different shards
	// are written in parallel, keys of one shard one after the other (in
	// the process and across processes). A power of two, at most 256.
	lockShards = 64
	// dirPermMask: the store refuses a directory with any of these
	// permission bits (group or other access). ASSUMPTION (safe choice):
	// sessions hold PSU ids, so the directory must be private to the TPP's
	// user, not only closed to writers; the store does not chmod a
	// directory it did not make.
	dirPermMask = 0o077
)

// ErrUnsafeStore is matched (errors.Is) by every [*UnsafeStoreError].
var ErrUnsafeStore = errors.New("sca: file store path is not safe")

// UnsafeStoreError is returned by [NewFileStore] for a directory it
// refuses, and by a [FileStore]'s methods for an entry of the directory
// they refuse to use. See [NewFileStore] for the rules.
type UnsafeStoreError struct {
	// Path is the directory or the entry.
	Path string
	// Reason says what is wrong, for example "is a symbolic link".
	Reason string
}

// Error returns one line naming the path and the reason.
func (e *UnsafeStoreError) Error() string {
	return "sca: file store: " + e.Path + " " + e.Reason
}

// Is matches [ErrUnsafeStore].
func (e *UnsafeStoreError) Is(target error) bool { return target == ErrUnsafeStore }

// FileStore is a Store keeping one file per key in a directory (mode 0700,
// files 0600).
//
// Writes replace a value atomically (temporary file, fsync, rename,
// directory fsync): a crash mid-write leaves the previous value readable,
// and readers see either the old or the new value, never a mix.
//
// It is safe for concurrent use by goroutines and by processes sharing the
// directory: Put, Delete, [FileStore.Take] and [FileStore.Update] of a key
// hold the key's lock, an in-process mutex and an OS file lock (flock(2)
// on a lock file of the key's shard), so a read-modify-write such as
// Update or Take is atomic across processes: a pending SCA is taken once,
// and a budget kept with Update is never over-spent. Get takes no lock.
// Keys are spread over 64 shards; keys of different shards are written in
// parallel.
//
// The store never follows a symbolic link: not for its directory, not for
// the files in it (O_NOFOLLOW). A file of the directory that is a symbolic
// link, not a regular file, or owned by another user is refused with an
// [*UnsafeStoreError].
//
// Platforms: the store needs flock(2), O_NOFOLLOW and POSIX permissions.
// On platforms without them (Windows, AIX, Solaris, js, wasip1)
// [NewFileStore] refuses with an error matching [errors.ErrUnsupported]
// rather than give a store whose cross-process guarantees do not hold.
type FileStore struct {
	dir string
	// uid is the user that must own the directory and its files.
	uid   int
	locks [lockShards]sync.Mutex
	// crashHook, when set (tests only), runs after the new value was
	// written to the temporary file and before it is synced and renamed;
	// an error from it stands for a crash at that point.
	crashHook func(tmpName string) error
}

// NewFileStore opens (creating it with mode 0700 if needed) the directory
// dir as a FileStore and removes temporary files older than an hour left
// by writers that crashed.
//
// It refuses, with an [*UnsafeStoreError], a dir that is a symbolic link
// or not a directory, that is owned by another user than the process's
// (effective) user, or that group or others may access at all (mode bits
// 0077: sessions hold PSU ids; an attacker who can write into the
// directory could plant a pending SCA that completes into the attacker's
// PSU-ID). Only the last element of dir is checked: its parents should not
// be writable by others either (a sticky directory such as /tmp is fine).
func NewFileStore(dir string) (*FileStore, error) {
	return openFileStore(dir, os.Geteuid())
}

// openFileStore is NewFileStore for a directory that user uid must own.
func openFileStore(dir string, uid int) (*FileStore, error) {
	if dir == "" {
		return nil, errors.New("sca: file store needs a directory")
	}
	if err := platformSupported(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("sca: creating file store directory: %w", err)
		}
	}
	if err := checkDir(dir, uid); err != nil {
		return nil, err
	}
	s := &FileStore{dir: dir, uid: uid}
	s.removeStale(time.Now())
	return s, nil
}

// checkDir applies the rules of [NewFileStore] to dir, which user uid
// must own: it looks at the
// directory entry itself (Lstat), then opens it without following a link
// and checks that the opened directory is the one looked at.
func checkDir(dir string, uid int) error {
	li, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("sca: opening file store: %w", err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeStoreError{Path: dir, Reason: "is a symbolic link"}
	}
	if !li.IsDir() {
		return &UnsafeStoreError{Path: dir, Reason: "is not a directory"}
	}
	d, err := openNoFollow(dir, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("sca: opening file store: %w", err)
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return fmt.Errorf("sca: opening file store: %w", err)
	}
	if !os.SameFile(li, fi) || !fi.IsDir() {
		return &UnsafeStoreError{Path: dir, Reason: "was replaced while being opened"}
	}
	if !ownedBy(fi, uid) {
		return &UnsafeStoreError{Path: dir, Reason: "is owned by another user"}
	}
	if fi.Mode().Perm()&dirPermMask != 0 {
		return &UnsafeStoreError{Path: dir, Reason: fmt.Sprintf("is open to group or others (mode %#o, want 0700)", fi.Mode().Perm())}
	}
	return nil
}

// checkFile refuses an opened entry of the store that is not a regular
// file owned by the store's user.
func (s *FileStore) checkFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("sca: file store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return &UnsafeStoreError{Path: f.Name(), Reason: "is not a regular file"}
	}
	if !ownedBy(fi, s.uid) {
		return &UnsafeStoreError{Path: f.Name(), Reason: "is owned by another user"}
	}
	return nil
}

// Dir returns the store's directory.
func (s *FileStore) Dir() string { return s.dir }

func (s *FileStore) removeStale(now time.Time) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, tmpPrefix) && !strings.HasPrefix(name, takePrefix) {
			continue
		}
		// Info is an Lstat; os.Remove removes a link, not its target.
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(s.dir, name))
		}
	}
}

// name returns the file name of key and its lock shard.
func (s *FileStore) name(key string) (string, int) {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + valueSuffix, int(sum[0]) % lockShards
}

// lockName is the name of the lock file of shard.
func lockName(shard int) string { return fmt.Sprintf("%s%02x", lockPrefix, shard) }

// lock takes the lock of shard: the in-process mutex, then the OS file
// lock shared with other processes. It returns the function that releases
// both.
func (s *FileStore) lock(ctx context.Context, shard int) (func(), error) {
	mu := &s.locks[shard]
	mu.Lock()
	path := filepath.Join(s.dir, lockName(shard))
	release, err := lockFile(ctx, path, s.checkFile)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() {
		release()
		mu.Unlock()
	}, nil
}

// Get returns the value under key, or ErrNotFound.
func (s *FileStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	name, _ := s.name(key)
	return s.readValue(filepath.Join(s.dir, name))
}

// openError describes the failure err of openNoFollow on path: an
// [*UnsafeStoreError] when path is a symbolic link (open fails with ELOOP,
// or EMLINK or EFTYPE on some systems, so the entry is looked at again).
func openError(op, path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeStoreError{Path: path, Reason: "is a symbolic link"}
	}
	return fmt.Errorf("sca: file store %s: %w", op, err)
}

// readValue reads the value file path without following a link.
func (s *FileStore) readValue(path string) ([]byte, error) {
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, openError("read", path, err)
	}
	defer f.Close()
	if err := s.checkFile(f); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxValue+1))
	if err != nil {
		return nil, fmt.Errorf("sca: file store read: %w", err)
	}
	if len(b) > maxValue {
		return nil, errors.New("sca: file store value too large")
	}
	return b, nil
}

// Put replaces the value under key atomically.
func (s *FileStore) Put(ctx context.Context, key string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if len(value) > maxValue {
		return errors.New("sca: file store value too large")
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	defer unlock()
	return s.writeAtomic(name, value)
}

// Update runs fn on the value under key and stores what fn returns, as one
// step atomic against every Put, Delete, Take and Update of the key, in
// this process and in every other process using the directory (see
// [FileStore]). fn gets the current value and true, or nil and false when
// the key is missing. When fn returns an error nothing changes and Update
// returns it; when it returns a nil value the key is deleted; an empty
// non-nil value is stored as such. A value equal to the current one is not
// written again. fn runs with the key's lock held: it must be quick and
// must not use the store.
//
// The accounts package's BudgetStoreFromKV uses Update, so a without-PSU
// budget kept in a FileStore holds across processes.
func (s *FileStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := s.readValue(filepath.Join(s.dir, name))
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	value, err := fn(old, found)
	switch {
	case err != nil:
		return err
	case value == nil && !found:
		return nil
	case value == nil:
		return s.remove(name)
	case found && bytes.Equal(old, value):
		return nil
	case len(value) > maxValue:
		return errors.New("sca: file store value too large")
	}
	return s.writeAtomic(name, value)
}

// writeAtomic writes value to a new temporary file in the directory,
// syncs it, renames it over name and syncs the directory. On any error
// the temporary file is removed and the old value stays. The caller holds
// the key's lock.
func (s *FileStore) writeAtomic(name string, value []byte) (err error) {
	// os.CreateTemp creates the file with O_EXCL (a link in its place
	// makes it fail) and mode 0600.
	tmp, err := os.CreateTemp(s.dir, tmpPrefix+name+"-*")
	if err != nil {
		return fmt.Errorf("sca: file store write: %w", err)
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("sca: file store write: %w", err)
	}
	if _, err = tmp.Write(value); err != nil {
		return fmt.Errorf("sca: file store write: %w", err)
	}
	if s.crashHook != nil {
		if err = s.crashHook(tmpName); err != nil {
			return err
		}
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sca: file store sync: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("sca: file store write: %w", err)
	}
	// rename replaces a link at the target; it never follows one.
	if err = os.Rename(tmpName, filepath.Join(s.dir, name)); err != nil {
		return fmt.Errorf("sca: file store rename: %w", err)
	}
	return s.syncDir()
}

// syncDir makes a rename or remove durable.
func (s *FileStore) syncDir() error {
	d, err := openNoFollow(s.dir, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("sca: file store sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sca: file store sync: %w", err)
	}
	return nil
}

// Delete removes key; a missing key is not an error.
func (s *FileStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	defer unlock()
	return s.remove(name)
}

// remove deletes the file name (a missing one is fine) and syncs the
// directory. The caller holds the key's lock.
func (s *FileStore) remove(name string) error {
	err := os.Remove(filepath.Join(s.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sca: file store delete: %w", err)
	}
	return s.syncDir()
}

// Take removes key and returns its value atomically, also across
// processes: it holds the key's lock (see [FileStore]), and the file is
// first renamed to a unique name, which only one caller can do.
func (s *FileStore) Take(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("sca: file store take: %w", err)
	}
	taken := filepath.Join(s.dir, takePrefix+name+"-"+hex.EncodeToString(rnd[:]))
	err = os.Rename(filepath.Join(s.dir, name), taken)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sca: file store take: %w", err)
	}
	b, err := s.readValue(taken)
	_ = os.Remove(taken)
	if err != nil {
		return nil, err
	}
	return b, s.syncDir()
}
