//go:build linux && !arm

package store

import (
	"syscall"
)

// preparesSpares: on Linux a FileStore makes its spares in batches and
// has them allocated on disk ahead of use (see makeSpares).
const preparesSpares = true

// prepareSpares writes the spares back (sync_file_range(2): the file
// system allocates their blocks), then syncs the last one's data, which
// commits the journal transaction holding every allocation. It is an
// optimisation only: a spare's content is synced again when it is filled
// (commitFile).
func prepareSpares(spares []*spare) error {
	// SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
	// SYNC_FILE_RANGE_WAIT_AFTER (linux/fs.h; package syscall does not
	// name them).
	const writeAndWait = 1 | 2 | 4
	for _, sp := range spares {
		if err := syscall.SyncFileRange(int(sp.f.Fd()), 0, 0, writeAndWait); err != nil {
			return err
		}
	}
	return datasync(spares[len(spares)-1].f)
}
