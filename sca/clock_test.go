package sca

import "time"

// withNow sets a Flow's time source directly, for the package's own tests
// (callers give the Flow a client's clock with WithClient).
func withNow(now func() time.Time) FlowOption {
	return func(f *Flow) error {
		f.now = now
		return nil
	}
}
