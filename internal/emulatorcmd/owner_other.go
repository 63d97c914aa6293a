//go:build !unix

package emulatorcmd

import "io/fs"

// ownedByMe cannot tell the owner from the file's mode on this system;
// the directory's access control list is the user's to keep private.
func ownedByMe(fs.FileInfo) bool { return true }
