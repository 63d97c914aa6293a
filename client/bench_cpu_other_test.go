//go:build !linux

package client

import "time"

// processCPU is not measured outside Linux: BenchmarkCreateOverhead then
// reports wall time and allocations only.
func processCPU() (time.Duration, bool) { return 0, false }
