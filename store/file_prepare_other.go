//go:build !linux || arm

package store

// preparesSpares: outside Linux (and on 32-bit ARM, whose syscall
// package lacks sync_file_range) spares are made one at a time, when a
// write needs one (see makeSpares).
const preparesSpares = false

// prepareSpares is never called here.
func prepareSpares([]*spare) error { return nil }
