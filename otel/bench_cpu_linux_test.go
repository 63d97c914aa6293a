//go:build linux

package otel_test

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU returns the CPU time the whole process has used so far
// (user and system, every thread: the goroutine measured, the garbage
// collector's workers, the batch span processor and the in-process
// emulator), from clock_gettime(CLOCK_PROCESS_CPUTIME_ID), which counts
// in nanoseconds; getrusage counts in microseconds, too coarse for one
// call. A copy of the core module's client test helper, which a nested
// module cannot import.
func processCPU() (time.Duration, bool) {
	const clockProcessCPUTimeID = 2 // CLOCK_PROCESS_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
