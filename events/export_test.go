package events

import "time"

// SetStoreWait sets the bound of e's store calls (storeWait).
func SetStoreWait(e *Emitter, d time.Duration) { e.storeWait = d }
