//go:build linux && !arm

package store

import (
	"syscall"
)

// preparesSpares: on Linux a FileStore makes its spares in batches and
// has them allocated on disk ahead of use (see makeSpares).
const preparesSpares = true

// syncFileRange is sync_file_range(2); tests replace it.
var syncFileRange = defaultSyncFileRange

// defaultSyncFileRange is syncFileRange outside tests.
var defaultSyncFileRange = syscall.SyncFileRange

// prepareSpares writes the spares back (sync_file_range(2): the file
// system allocates their blocks), then syncs the last one's data, which
// commits the journal transaction holding every allocation. It is an
// optimisation only: a spare's content is synced again when it is filled
// (commitFile).
//
// Every spare's write-back is started before the first is waited for,
// so that the batch's writes go to the disk together: waited for one
// after the other, a batch of 16 cost the write that made it 16 waits
// for the disk, and as many wake-ups on a busy machine.
func prepareSpares(spares []*spare) error {
	// SYNC_FILE_RANGE_WAIT_BEFORE, SYNC_FILE_RANGE_WRITE,
	// SYNC_FILE_RANGE_WAIT_AFTER (linux/fs.h; package syscall does not
	// name them).
	const (
		write        = 2
		writeAndWait = 1 | 2 | 4
	)
	for _, flags := range []int{write, writeAndWait} {
		for _, sp := range spares {
			if err := syncFileRange(int(sp.f.Fd()), 0, 0, flags); err != nil {
				return err
			}
		}
	}
	return datasync(spares[len(spares)-1].f)
}
