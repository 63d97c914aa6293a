//go:build !linux

package cpuclock

import "time"

// Process is not measured outside Linux: ok is false, and the benchmarks
// report wall time only.
func Process() (d time.Duration, ok bool) { return 0, false }
