package txsync

import (
	"time"

	"github.com/tppkit/psd2/internal/storebound"
)

// SetStoreWait shortens s's bound of each store call (storeWait) for a
// test of a hung store.
func SetStoreWait(s *Syncer, d time.Duration) {
	s.st = storebound.Store{Store: s.st.(storebound.Store).Store, Wait: d}
}

// IDKey is the store key under which Link keeps the key of owner's
// account of identity ident ("iban:NO93...", "iban:NO93...#1").
func IDKey(owner, ident string) string { return "txsync/id/" + digest(owner, ident) }
