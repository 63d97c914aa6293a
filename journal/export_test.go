package journal

import "time"

// SetStoreWait shortens j's bound of each store call (storeTimeout) for
// a test of a hung store.
func SetStoreWait(j *Journal, d time.Duration) {
	j.st = boundedStore{Store: j.st.(boundedStore).Store, wait: d}
}
