package reconcile

import (
	"time"

	"github.com/tppkit/psd2/internal/storebound"
)

// Reencode decodes an account's stored state and encodes it afresh,
// every payment from its fields (none copied from its earlier encoding).
func Reencode(b []byte) ([]byte, error) {
	s, err := decodeState(b)
	if err != nil {
		return nil, err
	}
	for i := range s.pays {
		s.pays[i].enc = nil
	}
	return encodeState(s), nil
}

// SetStoreWait shortens r's bound of each store call (storeWait) for a
// test of a hung store.
func SetStoreWait(r *Reconciler, d time.Duration) {
	r.st = storebound.Store{Store: r.st.(storebound.Store).Store, Wait: d}
}
