package pgstore

import "time"

// SetRollbackWait shortens o's bound of the rollback that ends a batch
// (rollbackTimeout) for a test of a hung database.
func SetRollbackWait(o *Outbox, d time.Duration) { o.cfg.rollbackWait = d }
