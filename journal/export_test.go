package journal

import (
	"context"
	"time"

	"github.com/tppkit/psd2/store"
)

// SetStoreWait shortens j's bound of each store call (storeTimeout) for
// a test of a hung store.
func SetStoreWait(j *Journal, d time.Duration) {
	j.st = boundedStore{Store: j.st.(boundedStore).Store, Wait: d}
}

// ExpireLeases removes the in-flight and claim leases of the entry of
// requestID from st, as the store's clock would once they ran out: for a
// test that moves the journal's clock past them.
func ExpireLeases(t interface{ Context() context.Context }, st store.Store, requestID string) {
	key, _ := entryKey(current, requestID)
	_ = st.Delete(t.Context(), flightKey(key))
	_ = st.Delete(t.Context(), claimKey(key))
}

// Age moves j's clock on until e is no longer young (older than the
// in-flight time and its own bound), as if that time had passed: for a
// test that resolves an entry whose outcome is unknown.
func Age(j *Journal, e Entry) {
	d := j.inFlight
	if u := e.Until.Sub(j.now()); u > d {
		d = u
	}
	j.ahead.Add(int64(d + time.Second))
	// The store's clock has moved on as much: the entry's in-flight lease
	// has run out.
	_ = j.st.Delete(context.Background(), flightKey(e.key))
}

// MovePast moves j's clock on past t, as if that time had passed.
func MovePast(j *Journal, t time.Time) {
	j.ahead.Add(int64(max(t.Sub(j.now()), 0) + time.Second))
}
