package main

import (
	"strings"
	"testing"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// The example runs on the test server when there is one (CI starts it),
// else on a file store, and ends with one payment at the bank.
func TestRun(t *testing.T) {
	conn := pgtest.Optional(t)
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
