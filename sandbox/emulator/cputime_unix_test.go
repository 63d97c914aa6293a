//go:build unix

package emulator_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used, which
// other processes on a busy machine disturb less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
