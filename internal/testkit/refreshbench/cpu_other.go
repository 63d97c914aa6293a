//go:build !unix

package refreshbench

import "time"

// ProcessCPU is 0 where the process's CPU time is not read: cpu-busy and
// cpu-us/call then report 0.
func ProcessCPU() time.Duration { return 0 }
