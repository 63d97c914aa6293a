package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// writers that crashed more than an hour ago, and returns how many
// expired values it removed. It runs when the store is opened and every
// 1024 writes; a TPP may also call it on a timer. Each removal holds the
// key's lock and checks the expiry again, so a value written meanwhile is
// kept.
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

// afterWrite counts a write and sweeps every fileSweepEvery writes.
func (s *FileStore) afterWrite(ctx context.Context) {
	if s.writes.Add(1)%fileSweepEvery == 0 {
		_, _ = s.Sweep(context.WithoutCancel(ctx))
	}
}
