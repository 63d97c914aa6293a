package main

import (
	"os"
	"strings"
	"testing"
)

// The example runs on the test server when there is one (CI starts it),
// else on a file store, and ends with one payment at the bank.
func TestRun(t *testing.T) {
	conn := os.Getenv("PSD2_TEST_POSTGRES")
	if conn == "" && os.Getenv("CI") == "true" {
		t.Fatal("PSD2_TEST_POSTGRES is not set, and CI=true: the example must run on PostgreSQL in CI")
	}
	var out strings.Builder
	if err := run(t.Context(), &out, conn); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	want := "sharing one PostgreSQL database"
	if conn == "" {
		want = "sharing a file store"
	}
	for _, line := range []string{want, "the callback reached replica B, which completed it",
		"replica B sees 0 calls left", `resolved as "duplicate"`, "the bank holds 1 payment"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}
