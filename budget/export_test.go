package budget

import "time"

// SetStoreWait shortens b's bound of each store call (SettleWait) for a
// test of a hung store.
func SetStoreWait(b *Budget, d time.Duration) { b.storeWait = d }

// Decode is decode, for tests of the stored form.
func Decode(raw []byte) error {
	_, err := decode(raw, true)
	return err
}

// SetPauseClock sets the system clock b keeps the bank's pause on, for a
// test of replicas whose clocks differ.
func SetPauseClock(b *Budget, now func() time.Time) { b.pauseNow = now }
