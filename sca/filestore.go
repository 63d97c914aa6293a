package sca

import (
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
// never read as values.
const (
	valueSuffix = ".val"
	tmpPrefix   = ".tmp-"
	takePrefix  = ".take-"
	// staleTemp is the age after which NewFileStore removes leftover
	// temporary files of writers that crashed.
	staleTemp = time.Hour
	// maxValue bounds a value read from disk.
	maxValue = 16 << 20
	// lockStripes is the number of per-key lock stripes.
	lockStripes = 64
	// dirPermMask: the store refuses an existing directory with any of
	// these permission bits (group or other access). ASSUMPTION (safe
	// choice): sessions hold PSU ids, so the directory must be private to
	// the TPP's user; the store does not chmod a directory it did not make.
	dirPermMask = 0o077
)

// FileStore is a Store keeping one file per key in a directory (mode 0700,
// files 0600). Writes replace a value atomically (temporary file, fsync,
// rename, directory fsync): a crash mid-write leaves the previous value
// readable, and readers in other processes see either the old or the new
// value, never a mix. It is safe for concurrent use by goroutines (per-key
// locks) and by processes sharing the directory (rename is atomic; the last
// writer wins).
type FileStore struct {
	dir   string
	locks [lockStripes]sync.Mutex
	// crashHook, when set (tests only), runs after the new value was
	// written to the temporary file and before it is synced and renamed;
	// an error from it stands for a crash at that point.
	crashHook func(tmpName string) error
}

// NewFileStore opens (creating it with mode 0700 if needed) the directory
// dir as a FileStore. An existing directory that group or others may access
// is refused (sessions hold PSU ids; safe-side assumption). It removes
// temporary files older than an hour left by writers that crashed.
func NewFileStore(dir string) (*FileStore, error) {
	if dir == "" {
		return nil, errors.New("sca: file store needs a directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sca: creating file store directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("sca: opening file store: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("sca: file store path is not a directory")
	}
	if fi.Mode().Perm()&dirPermMask != 0 {
		return nil, errors.New("sca: file store directory is open to group or others (want mode 0700)")
	}
	s := &FileStore{dir: dir}
	s.removeStale(time.Now())
	return s, nil
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
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(s.dir, name))
		}
	}
}

// name returns the file name of key and its lock stripe.
func (s *FileStore) name(key string) (string, *sync.Mutex) {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + valueSuffix, &s.locks[sum[0]%lockStripes]
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
	return readValue(filepath.Join(s.dir, name))
}

func readValue(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sca: file store read: %w", err)
	}
	defer f.Close()
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
	name, mu := s.name(key)
	mu.Lock()
	defer mu.Unlock()
	return s.writeAtomic(name, value)
}

// writeAtomic writes value to a new temporary file in the directory,
// syncs it, renames it over name and syncs the directory. On any error
// the temporary file is removed and the old value stays.
func (s *FileStore) writeAtomic(name string, value []byte) (err error) {
	// os.CreateTemp creates the file with mode 0600.
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
	if err = os.Rename(tmpName, filepath.Join(s.dir, name)); err != nil {
		return fmt.Errorf("sca: file store rename: %w", err)
	}
	return s.syncDir()
}

// syncDir makes a rename or remove durable.
func (s *FileStore) syncDir() error {
	d, err := os.Open(s.dir)
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
	name, mu := s.name(key)
	mu.Lock()
	defer mu.Unlock()
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
// processes: the file is first renamed to a unique name, which only one
// caller can do.
func (s *FileStore) Take(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	name, mu := s.name(key)
	mu.Lock()
	defer mu.Unlock()
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("sca: file store take: %w", err)
	}
	taken := filepath.Join(s.dir, takePrefix+name+"-"+hex.EncodeToString(rnd[:]))
	err := os.Rename(filepath.Join(s.dir, name), taken)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sca: file store take: %w", err)
	}
	b, err := readValue(taken)
	_ = os.Remove(taken)
	if err != nil {
		return nil, err
	}
	return b, s.syncDir()
}
