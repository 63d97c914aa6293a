package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeAtomic makes content durable under name: a file holding it is
// synced, renamed over name, and the directory synced (see
// file_durable.go). On any error but the directory sync's the old value
// stays. The caller holds the key's lock.
func (s *FileStore) writeAtomic(name string, content []byte) error {
	if s.reuse {
		return s.writeSpare(name, content)
	}
	return s.writeNew(name, content)
}

// writeNew is writeAtomic with a new temporary file.
func (s *FileStore) writeNew(name string, content []byte) (err error) {
	// os.CreateTemp creates the file with O_EXCL (a link in its place
	// makes it fail) and mode 0600.
	tmp, err := os.CreateTemp(s.dir, tmpPrefix+name+"-*")
	if err != nil {
		return fmt.Errorf("store: file store write: %w", err)
	}
	r := &newFile{f: tmp, path: tmp.Name(), name: name}
	defer func() {
		if err != nil && !r.renamed {
			_ = tmp.Close()
			_ = os.Remove(r.path)
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("store: file store write: %w", err)
	}
	if _, err = tmp.Write(content); err != nil {
		return fmt.Errorf("store: file store write: %w", err)
	}
	if s.crashHook != nil {
		if err = s.crashHook(r.path); err != nil {
			return err
		}
	}
	err = s.commitFile(r)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: file store write: %w", cerr)
	}
	return err
}

// writeSpare is writeAtomic with a spare (see file_spare.go): it fills a
// spare, keeps the old value's file under a temporary name (a hard link)
// and, once the new value is durable under name, makes that file a
// spare.
func (s *FileStore) writeSpare(name string, content []byte) error {
	sp, err := s.takeSpare()
	if err != nil {
		return err
	}
	if err := sp.fill(content); err != nil {
		sp.discard()
		return err
	}
	if s.crashHook != nil {
		if err := s.crashHook(sp.path); err != nil {
			sp.discard()
			return err
		}
	}
	old, err := s.spareName()
	if err != nil {
		sp.discard()
		return err
	}
	// link(2) never follows a link here (linkat without
	// AT_SYMLINK_FOLLOW): a link under name is kept as a link, which
	// adopt refuses. No old value: nothing to keep.
	kept := os.Link(filepath.Join(s.dir, name), old) == nil
	r := &newFile{f: sp.f, path: sp.path, name: name}
	err = s.commitFile(r)
	if r.renamed {
		_ = sp.f.Close()
	} else {
		sp.discard()
	}
	if err != nil && kept {
		_ = os.Remove(old)
	}
	switch {
	case !r.renamed && errors.Is(err, fs.ErrNotExist):
		// The spare's name was removed, as a stale temporary file, before
		// it was locked (see removeStale): write with a new file.
		return s.writeNew(name, content)
	case err != nil:
		return err
	}
	if kept {
		s.adopt(old)
	}
	return nil
}

// newFile is the file of a new value, on its way to its name.
type newFile struct {
	f    *os.File
	path string // its temporary name
	name string // the value's name
	// renamed says the file is under name.
	renamed bool
}

// commitFile makes r durable: syncs its content, renames it over its
// name, syncs the directory (see file_durable.go).
func (s *FileStore) commitFile(r *newFile) error {
	if err := s.syncContent(r.f); err != nil {
		return err
	}
	// A spare's exclusive lock is released first: readers must get a
	// shared lock on a value.
	if err := unlockFile(r.f); err != nil {
		return err
	}
	// rename replaces a link at the target; it never follows one.
	if err := os.Rename(r.path, filepath.Join(s.dir, r.name)); err != nil {
		return fmt.Errorf("store: file store rename: %w", err)
	}
	r.renamed = true
	return s.dirChanged()
}

// remove deletes the file name (a missing one is fine) and syncs the
// directory. With reuse, the file is renamed to a temporary name and
// becomes a spare. The caller holds the key's lock.
func (s *FileStore) remove(name string) error {
	path := filepath.Join(s.dir, name)
	if !s.reuse {
		err := os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: file store delete: %w", err)
		}
		return s.dirChanged()
	}
	old, err := s.spareName()
	if err != nil {
		return err
	}
	err = os.Rename(path, old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: file store delete: %w", err)
	}
	if err := s.dirChanged(); err != nil {
		_ = os.Remove(old)
		return err
	}
	s.adopt(old)
	return nil
}
