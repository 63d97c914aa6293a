package payments

import "time"

// SetWaitLimit sets the bound of a Wait whose ctx has no deadline until
// the returned func restores it. Not for parallel tests.
func SetWaitLimit(d time.Duration) (restore func()) {
	old := waitLimit
	waitLimit = d
	return func() { waitLimit = old }
}
