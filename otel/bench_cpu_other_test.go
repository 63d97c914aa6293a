//go:build !linux

package otel_test

import "time"

// processCPU is not measured outside Linux: BenchmarkPerRequestCost then
// reports wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
