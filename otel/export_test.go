package otel

// Deferring says whether o keeps its measurements for batches
// (deferred.go).
func Deferring(o *Observer) bool { return o.deferred.on }

// Kept is the number of measurements o keeps now.
func Kept(o *Observer) int {
	o.deferred.mu.Lock()
	defer o.deferred.mu.Unlock()
	return len(o.deferred.batch)
}

// DeferBatch is deferBatch, DeferMaxDelay deferMaxDelay and
// DeferHookName deferHookName.
const (
	DeferBatch    = deferBatch
	DeferMaxDelay = deferMaxDelay
	DeferHookName = deferHookName
)

// RecordAtOnce turns o's deferral off: each measurement is recorded as
// the call that makes it ends, as before deferral (a benchmark's side).
func RecordAtOnce(o *Observer) { o.deferred.on = false }
