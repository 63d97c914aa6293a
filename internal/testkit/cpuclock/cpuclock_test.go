package cpuclock

import (
	"runtime"
	"testing"
)

// The clock advances with work done, and never goes back.
func TestProcessAdvances(t *testing.T) {
	before, ok := Process()
	if runtime.GOOS != "linux" {
		if ok {
			t.Fatal("Process reports a reading outside Linux")
		}
		t.Skip("the CPU clock is read on Linux only")
	}
	if !ok {
		t.Fatal("Process: the clock could not be read")
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	after, ok := Process()
	if !ok || after <= before {
		t.Fatalf("Process went from %v to %v (ok %t) over a busy loop (%d)", before, after, ok, x)
	}
}
