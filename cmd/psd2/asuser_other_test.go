//go:build !unix

package main

import "testing"

// asAnotherUser is only for a test run as root, on Unix.
func asAnotherUser(t *testing.T) (func(*testing.T, ...string) (string, string, int), string, func(string)) {
	t.Skip("no other user to run psd2 as here")
	return nil, "", nil
}
