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

// CountLoose makes each Apply's loose matching add the comparisons it
// made to *pairs and *costly, until the test ends. Not for parallel
// tests.
func CountLoose(t interface{ Cleanup(func()) }, pairs, costly *int) {
	looseSpent = func(p, c int) { *pairs += p; *costly += c }
	t.Cleanup(func() { looseSpent = nil })
}

// MaxLoosePairs is the bound of one read's loose comparisons.
const MaxLoosePairs = maxLoosePairs
