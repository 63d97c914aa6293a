package pgstore_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain leaves TestOutboxCrashChild, the consumer process
// TestOutboxExactlyOnce starts and kills, out of a normal run
// (-test.skip, unless the run has a -skip of its own), so that it is
// neither run nor reported as skipped.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(envOutboxChild) == "" {
		if s := flag.Lookup("test.skip"); s != nil && s.Value.String() == "" {
			_ = s.Value.Set("^TestOutboxCrashChild$")
		}
	}
	os.Exit(m.Run())
}
