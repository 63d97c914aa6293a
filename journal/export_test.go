package journal

import (
	"context"
	"time"

	"github.com/tppkit/psd2/store"
)

// SetStoreWait shortens j's bound of each store call (storeTimeout) for
// a test of a hung store.
func SetStoreWait(j *Journal, d time.Duration) {
	j.st = boundedStore{Store: j.st.(boundedStore).Store, wait: d}
}

// ExpireLeases removes the in-flight and claim leases of the entry of
// requestID from st, as the store's clock would once they ran out: for a
// test that moves the journal's clock past them.
func ExpireLeases(t interface{ Context() context.Context }, st store.Store, requestID string) {
	key, _ := entryKey(current, requestID)
	_ = st.Delete(t.Context(), flightKey(key))
	_ = st.Delete(t.Context(), claimKey(key))
}
