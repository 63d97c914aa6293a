// Package cpuclock reads the process's CPU clock for the benchmarks that
// compare the SDK with a bare request (client's BenchmarkCreateOverhead,
// otel's BenchmarkPerRequestCost): one reading before and after each call
// of interleaved pairs gives CPU per call on a machine other processes
// share, where wall time swings with their load.
package cpuclock
