package pgstore_test

import (
	"os"
	"testing"

	"github.com/tppkit/psd2/internal/testkit/childproc"
)

// TestMain leaves TestOutboxCrashChild, the consumer process
// TestOutboxExactlyOnce starts and kills, out of a normal run.
func TestMain(m *testing.M) {
	childproc.LeaveOut(envOutboxChild, "TestOutboxCrashChild")
	os.Exit(m.Run())
}
