//go:build linux

package store

import (
	"os"
	"syscall"
)

// defaultShareSyncs: on Linux the writers of a FileStore share their
// directory syncs (see file_durable.go).
const defaultShareSyncs = true

// datasync makes the content of f durable: fdatasync(2), which writes the
// data and the metadata needed to read it back (the size), not the times.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}

// defaultReuse: FileStores reuse the files of replaced values on Linux,
// where link(2) never follows a symbolic link.
const defaultReuse = true
