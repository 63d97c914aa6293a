package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Reusing files. Creating a file costs a file system far more than
// rewriting one (it allocates an inode; ext4 without a journal scans
// every recently freed inode of the group for one it may reuse, and each
// write here would free one). So a FileStore keeps the file of a value it
// replaced or removed, once the change is durable, as a spare: the next
// write fills a spare, syncs it and renames it over its value's name.
// Writes that replace values then create and free no file; a write of a
// new key creates one when no spare is left.
//
// A reused file must never change under a reader. Readers that hold no
// key lock (Get, Keys) take a shared flock(2) on the value file they
// opened, without waiting, then check it is still under the name they
// opened (see readOnce); a writer takes a spare only with an exclusive
// flock taken without waiting, and holds it until the spare is filled
// and synced. A file under a value's name is never written, so a reader
// that holds its lock and finds its file under its name reads a whole
// value, which does not change until it is done. A reader refused the
// lock, or whose file left its name, opens the name again. A file held
// by a reader is not reused (the writer cannot lock it): it is dropped.
// Readers that hold the key's lock need no flock: the file under that
// key's name cannot leave it while they hold the lock.
//
// Files of format version 1 are never reused: a process of an older
// version of this package reads them without a flock. It refuses files
// of version 2 (a format it does not know), so it never reads a reused
// one.

// maxSpares bounds the spares a FileStore keeps (one open file each).
// Each write takes one and, usually, gives one back, so the number in use
// stays near the number of concurrent writers.
const maxSpares = lockShards

// spare is a file of the directory, under a temporary name, that a write
// may fill.
type spare struct {
	f    *os.File
	path string
	size int64
}

// sparePool holds a FileStore's spares, each with its exclusive flock.
type sparePool struct {
	mu   sync.Mutex
	free []*spare
	// coming is the number of spares that writes making a batch
	// (makeSpares) will give the pool.
	coming int
	// discarded counts the spares removed for want of room in the pool
	// (tests read it).
	discarded atomic.Int64
}

// takeSpare returns a spare to fill: one of the pool, or a new temporary
// file. A write that finds the pool empty makes a batch of spares, as
// many as the pool has room for besides the spares of the batches other
// writes are making: batches made at once would overflow the pool, and
// each spare removed for want of room is an inode made and freed for
// nothing, which the next creations of files may have to skip (see
// makeSpares).
func (s *FileStore) takeSpare() (*spare, error) {
	p := &s.spares
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		sp := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return sp, nil
	}
	if !s.reuse || !preparesSpares {
		p.mu.Unlock()
		return s.newSpare()
	}
	// The write's own spare, and the others it may give the pool.
	give := max(0, min(s.spareBatchLen()-1, maxSpares-len(p.free)-p.coming))
	p.coming += give
	p.mu.Unlock()
	return s.makeSpares(give)
}

// newSpare creates an empty spare.
func (s *FileStore) newSpare() (*spare, error) {
	// os.CreateTemp creates the file with O_EXCL (a link in its place
	// makes it fail) and mode 0600.
	f, err := os.CreateTemp(s.dir, tmpPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("store: file store write: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("store: file store write: %w", err)
	}
	return &spare{f: f, path: f.Name()}, nil
}

// Prepared spares. A write of a new key, with no spare left, would fill
// a new, empty file: its data sync then allocates the file's blocks and
// commits them, with the new inode, in a journal commit of its own, on
// top of the one of the directory sync. Measured with the storeratio
// harness (examples/internal/storeratio), that made the first round of a
// refresh, where every budget key is new, cost 2 to 3 times the later
// rounds' time in the store. So a write that finds no spare makes
// spareBatch of them at once: it creates them, writes each to
// spareSize bytes and has the file system write them back and allocate
// their blocks (prepareSpares); then one data sync commits them all.
// Filling a prepared spare of its size later changes no metadata: its
// data sync writes the data alone, as a write in place does. Durability
// does not rest on this: every write still syncs its own file's content
// before the rename (see commitFile), whatever a spare held before.
const (
	// spareBatch is how many spares a write that finds none makes.
	spareBatch = 16
	// spareSize is the size of a prepared spare: the size of the file of
	// a small value (two slots of minSlot), such as a budget's.
	spareSize = slotsAt + 2*minSlot
)

// spareBatchLen is the number of spares makeSpares makes.
func (s *FileStore) spareBatchLen() int {
	if s.testSpareBatch > 0 {
		return s.testSpareBatch
	}
	return spareBatch
}

// makeSpares makes 1+give spares, returns one and gives the others to
// the pool, where takeSpare counted them as coming. Each is locked
// exclusively (see sparePool).
//
// On ext4 without a journal a file's creation skips every inode of its
// group freed in the last minute or more (they are not reused so soon),
// checking each one: a spare made and removed makes the next creations
// slower, which is why none is made for nothing.
func (s *FileStore) makeSpares(give int) (*spare, error) {
	p := &s.spares
	content := make([]byte, spareSize)
	copy(content, fileMagic)
	var made []*spare
	for range 1 + give {
		sp, err := s.newSpare()
		if err == nil {
			if ok, lerr := tryLockFile(sp.f, true); !ok || lerr != nil {
				err = fmt.Errorf("store: file store write: a new spare is locked (%v)", lerr)
			}
		}
		if err == nil {
			err = sp.fill(content)
		}
		if err != nil {
			if sp != nil {
				sp.discard()
			}
			if len(made) > 0 {
				break // use what was made
			}
			p.mu.Lock()
			p.coming -= give
			p.mu.Unlock()
			return nil, err
		}
		made = append(made, sp)
	}
	// An error costs time only: filling a spare that was not prepared
	// syncs it as a new file.
	_ = prepareSpares(made)
	first, rest := made[0], made[1:]
	p.mu.Lock()
	p.coming -= give
	for len(rest) > 0 && len(p.free) < maxSpares {
		p.free = append(p.free, rest[0])
		rest = rest[1:]
	}
	p.mu.Unlock()
	for _, sp := range rest {
		p.discarded.Add(1)
		sp.discard()
	}
	return first, nil
}

// fill writes content over the spare's old content.
func (sp *spare) fill(content []byte) error {
	if _, err := sp.f.WriteAt(content, 0); err != nil {
		return fmt.Errorf("store: file store write: %w", err)
	}
	if n := int64(len(content)); sp.size > n {
		if err := sp.f.Truncate(n); err != nil {
			return fmt.Errorf("store: file store write: %w", err)
		}
	}
	sp.size = int64(len(content))
	return nil
}

// discard closes the spare and removes its name.
func (sp *spare) discard() {
	_ = sp.f.Close()
	_ = os.Remove(sp.path)
}

// spareName returns a new temporary name in the directory for a file that
// may become a spare.
func (s *FileStore) spareName() (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("store: file store write: %w", err)
	}
	return filepath.Join(s.dir, tmpPrefix+hex.EncodeToString(rnd[:])), nil
}

// adopt makes the file at path, a value that left its name durably, a
// spare. It removes the file instead when a reader still holds it, when
// it is of format version 1 or not a file of the store, or when the pool
// is full.
func (s *FileStore) adopt(path string) {
	f, err := openNoFollow(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return // removed as stale meanwhile
	}
	if err != nil {
		_ = os.Remove(path)
		return
	}
	sp, ok := s.vetSpare(f)
	if !ok {
		_ = f.Close()
		_ = os.Remove(path)
		return
	}
	sp.path = path
	p := &s.spares
	p.mu.Lock()
	if len(p.free) < maxSpares {
		p.free = append(p.free, sp)
		sp = nil
	}
	p.mu.Unlock()
	if sp != nil {
		p.discarded.Add(1)
		sp.discard()
	}
}

// vetSpare locks f exclusively and checks it may be reused: a regular
// file of the store's user, in format version 2 or 3.
func (s *FileStore) vetSpare(f *os.File) (*spare, bool) {
	fi, err := s.statFile(f)
	if err != nil {
		return nil, false
	}
	if ok, err := tryLockFile(f, true); !ok || err != nil {
		return nil, false
	}
	var magic [len(fileMagic)]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil || (string(magic[:]) != fileMagic && string(magic[:]) != fileMagicV2) {
		return nil, false
	}
	return &spare{f: f, size: fi.Size()}, true
}
