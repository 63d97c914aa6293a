//go:build !linux

package store

import "os"

// defaultShareSyncs: outside Linux each write syncs its own file and the
// directory.
const defaultShareSyncs = false

// datasync makes the content of f durable.
func datasync(f *os.File) error { return f.Sync() }

// defaultReuse: FileStores reuse the files of replaced values on Linux,
// where link(2) never follows a symbolic link.
const defaultReuse = false
