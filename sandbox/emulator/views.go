package emulator

import "time"

// Each TPP has a sandbox of its own: the store of its tppIdentity, made
// with the default customers the first time the TPP calls (or is seeded),
// and replaced by a new default store when it initialises the sandbox.
// What a TPP creates (customers, accounts, card accounts, transactions,
// agreements) and what its payments book lives in its own store only, so
// no TPP sees or changes another's mock data, and initialisation leaves
// exactly the default customers in the caller's view (docs/interface.md
// section 1.5).
//
// Everything below needs s.mu held, as the store does.

// storeOf returns the sandbox of the TPP tppID (its tppIdentity), or nil
// before the TPP's first call.
func (bk *bank) storeOf(tppID string) *store { return bk.stores[tppID] }

// data returns the sandbox of the calling TPP. handle made it before the
// handler runs (ensureStore), so it is never nil.
func (c *call) data() *store { return c.s.stores[c.tpp.id] }

// ensureStore makes the sandbox of tppID, with the default customers as of
// now, unless it has one. It takes s.mu for writing only when the store
// is missing.
func (bk *bank) ensureStore(tppID string, now time.Time) {
	bk.mu.RLock()
	ok := bk.stores[tppID] != nil
	bk.mu.RUnlock()
	if ok {
		return
	}
	bk.mu.Lock()
	bk.ensureStoreLocked(tppID, now)
	bk.mu.Unlock()
}

// ensureStoreLocked is ensureStore with s.mu held for writing; it returns
// the store.
func (bk *bank) ensureStoreLocked(tppID string, now time.Time) *store {
	st := bk.stores[tppID]
	if st == nil {
		st = newDefaultStore(now, bk.data)
		bk.stores[tppID] = st
	}
	return st
}
