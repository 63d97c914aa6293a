package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// errReused is returned by readOnce when the file it opened left its
// name before it could lock it (it was replaced, and maybe reused as a
// spare, see file_spare.go): the reader opens the name again.
var errReused = errors.New("store: file store entry was replaced during the read")

// readTries is how many times a reader without the key's lock opens a
// name whose file keeps being replaced before it takes the key's lock.
const readTries = 8

// openValue opens the value file path (with flag, os.O_RDONLY or
// os.O_RDWR) without following a link and checks it is a regular file of
// the store's user.
func (s *FileStore) openValue(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := openNoFollow(path, flag, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ErrNotStored
	}
	if err != nil {
		return nil, nil, openError("read", path, err)
	}
	fi, err := s.statFile(f)
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// readOnce reads the value file path: its header, and its value when
// withValue. The file must hold key; when key is "", the key whose file
// name path ends with.
//
// locked says the caller holds the lock of the file's key, so the file
// under path cannot change. Otherwise readOnce takes a shared flock on
// the file it opened and checks the file is still under path: a file
// under a value's name, with no writer's lock, is a whole value that does
// not change while the flock is held. When the file is locked by a
// writer or has left path, it returns errReused.
func (s *FileStore) readOnce(path, key string, withValue, locked bool) ([]byte, fileHeader, error) {
	s.opened.Add(1)
	f, fi, err := s.openValue(path, os.O_RDONLY)
	if err != nil {
		return nil, fileHeader{}, err
	}
	defer f.Close()
	return s.readFile(f, fi, path, key, withValue, locked)
}

// readFile is readOnce with the file f, open, whose FileInfo is fi.
func (s *FileStore) readFile(f *os.File, fi fs.FileInfo, path, key string, withValue, locked bool) ([]byte, fileHeader, error) {
	if !locked {
		ok, err := tryLockFile(f, false)
		if err != nil {
			return nil, fileHeader{}, err
		}
		if !ok || !stillAt(fi, path) {
			return nil, fileHeader{}, errReused
		}
	}
	// The file does not change while it is read: one read, of the size
	// it has, or of the largest file the store writes (a version 1 or 2
	// file without its value when only the header is needed).
	limit := int64(slotsAt + 2*maxSlot)
	if !withValue {
		var magic [len(fileMagic)]byte
		if _, err := f.ReadAt(magic[:], 0); err == nil && string(magic[:]) != fileMagic {
			limit = int64(headerLen + MaxKeyLen)
		}
	}
	b := make([]byte, min(fi.Size(), limit))
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fileHeader{}, fmt.Errorf("store: file store read: %w", err)
	}
	h, value, err := decodeFile(b)
	if err != nil {
		return nil, fileHeader{}, corruptAt(path, err)
	}
	if key != "" && h.key != key {
		return nil, fileHeader{}, corruptAt(path, fmt.Errorf("%w: holds another key", ErrCorrupt))
	}
	if key == "" {
		if name, _ := s.name(h.key); name != filepath.Base(path) {
			return nil, fileHeader{}, corruptAt(path, fmt.Errorf("%w: holds another key", ErrCorrupt))
		}
	}
	if !withValue {
		return nil, h, nil
	}
	if len(value) > MaxValueLen {
		return nil, fileHeader{}, corruptAt(path, fmt.Errorf("%w: value above %d bytes", ErrCorrupt, MaxValueLen))
	}
	return value, h, nil
}

// corruptAt names the value file path in err, an [ErrCorrupt] of it:
// its name is a hash of its key, and a reader of many (Keys, a tool
// listing the journal) stops at it, so without its path an operator
// could not tell which of the directory's files to look at.
func corruptAt(path string, err error) error {
	return fmt.Errorf("%w (the file %s)", err, path)
}

// stillAt reports whether fi, of an open file, is the file under path.
func stillAt(fi fs.FileInfo, path string) bool {
	li, err := os.Lstat(path)
	return err == nil && os.SameFile(fi, li)
}

// readEntry reads the value file name of the directory (see readOnce)
// without holding its key's lock. After readTries files replaced under
// it, it reads once more with the lock (of shard).
func (s *FileStore) readEntry(ctx context.Context, name string, shard int, key string, withValue bool) ([]byte, fileHeader, error) {
	path := filepath.Join(s.dir, name)
	for range readTries {
		b, h, err := s.readOnce(path, key, withValue, false)
		if !errors.Is(err, errReused) {
			return b, h, err
		}
	}
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return nil, fileHeader{}, err
	}
	defer unlock()
	return s.readOnce(path, key, withValue, true)
}

// openError describes the failure err of openNoFollow on path: an
// [*UnsafeStoreError] when path is a symbolic link (open fails with ELOOP,
// or EMLINK or EFTYPE on some systems, so the entry is looked at again).
func openError(op, path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeStoreError{Path: path, Reason: "is a symbolic link"}
	}
	return fmt.Errorf("store: file store %s: %w", op, err)
}
