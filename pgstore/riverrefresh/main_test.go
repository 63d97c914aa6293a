package riverrefresh_test

import (
	"os"
	"testing"

	"github.com/tppkit/psd2/internal/testkit/childproc"
)

// TestMain leaves TestCrashChild, the worker process TestCrashSIGKILL
// starts, out of a normal run.
func TestMain(m *testing.M) {
	childproc.LeaveOut(envCrashChild, "TestCrashChild")
	os.Exit(m.Run())
}
