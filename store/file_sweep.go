package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// removeStale removes the temporary files of writers that crashed: those
// older than staleTemp that no process holds locked (a spare of a live
// FileStore is locked, see file_spare.go, and may be old).
func (s *FileStore) removeStale(entries []os.DirEntry, now time.Time) {
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, tmpPrefix) && !strings.HasPrefix(name, takePrefix) {
			continue
		}
		// Info is an Lstat; os.Remove removes a link, not its target.
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= staleTemp {
			continue
		}
		path := filepath.Join(s.dir, name)
		if f, err := openNoFollow(path, os.O_RDONLY, 0); err == nil {
			free, err := tryLockFile(f, true)
			_ = f.Close()
			if !free || err != nil {
				continue
			}
		}
		_ = os.Remove(path)
	}
}

// Sweep removes the files of expired values and the temporary files of
// writers that crashed more than an hour ago, reading the whole
// directory, and returns how many expired values it removed. It runs when
// the store is opened; a TPP may also call it on a timer. (Writes sweep
// the directory a slice at a time, see [FileStore].) Each removal holds
// the key's lock and checks the expiry again, so a value written
// meanwhile is kept.
func (s *FileStore) Sweep(ctx context.Context) (int, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, fmt.Errorf("store: file store sweep: %w", err)
	}
	return s.sweepEntries(ctx, entries)
}

// sweepEntries is Sweep over some entries of the directory.
func (s *FileStore) sweepEntries(ctx context.Context, entries []os.DirEntry) (int, error) {
	now := s.clock()
	s.removeStale(entries, now)
	removed := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		name := e.Name()
		shard, ok := shardOfName(name)
		if !ok {
			continue
		}
		_, h, err := s.readOnce(filepath.Join(s.dir, name), "", false, false)
		if err != nil || !h.expired(now) {
			continue
		}
		gone, err := s.removeIfExpired(ctx, name, shard)
		if err != nil {
			return removed, err
		}
		if gone {
			removed++
		}
	}
	return removed, nil
}

// removeIfExpired removes the value file name under its shard's lock when
// it is still expired.
func (s *FileStore) removeIfExpired(ctx context.Context, name string, shard int) (bool, error) {
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return false, err
	}
	defer unlock()
	_, h, err := s.readOnce(filepath.Join(s.dir, name), "", false, true)
	if err != nil || !h.expired(s.clock()) {
		return false, nil
	}
	return true, s.remove(name)
}

// sweeper is the state of the sweep that a FileStore's writes run a
// slice at a time: a pass reads the directory in slices of fileSweepSlice
// entries, one slice every fileSweepEvery writes, so that a write pays
// for at most fileSweepSlice/fileSweepEvery entries (4) however many the
// directory holds; a pass starts at most every fileSweepPass writes, so
// that a small directory is not read over and over.
type sweeper struct {
	mu sync.Mutex
	// dir is the directory of the pass under way, read where the last
	// slice ended; nil between passes.
	dir *os.File
	// passStart is the write count when the last pass started.
	passStart int64
	started   bool
}

// afterWrite counts a write of a new file (Put, Update of a new key or of
// a value that outgrew its file) and sweeps a slice every fileSweepEvery
// of them.
func (s *FileStore) afterWrite(ctx context.Context) {
	if n := s.writes.Add(1); n%fileSweepEvery == 0 {
		_, _ = s.sweepSlice(context.WithoutCancel(ctx), n)
	}
}

// sweepSlice sweeps the next slice of the pass under way, or starts a
// pass, when writes, the current write count, allows it. One slice runs
// at a time; a writer that finds one running goes on.
func (s *FileStore) sweepSlice(ctx context.Context, writes int64) (int, error) {
	w := &s.sweep
	if !w.mu.TryLock() {
		return 0, nil
	}
	defer w.mu.Unlock()
	if w.dir == nil {
		if w.started && writes-w.passStart < fileSweepPass {
			return 0, nil
		}
		d, err := openNoFollow(s.dir, os.O_RDONLY, 0)
		if err != nil {
			return 0, fmt.Errorf("store: file store sweep: %w", err)
		}
		w.dir, w.passStart, w.started = d, writes, true
	}
	entries, err := w.dir.ReadDir(s.sweepSliceLen())
	if err != nil || len(entries) < s.sweepSliceLen() {
		// The pass is done (io.EOF), or cannot go on.
		_ = w.dir.Close()
		w.dir = nil
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("store: file store sweep: %w", err)
		}
	}
	return s.sweepEntries(ctx, entries)
}

// sweepSliceLen is the number of entries of a slice of the sweep.
func (s *FileStore) sweepSliceLen() int {
	if s.testSweepSlice > 0 {
		return s.testSweepSlice
	}
	return fileSweepSlice
}
