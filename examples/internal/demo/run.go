package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// Main is an example's main function: it calls run with a background
// context, writing to standard output. When run fails it prints
// "name: error" to standard error and exits with status 1, which fails CI.
func Main(name string, run func(ctx context.Context, out io.Writer) error) {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Example calls run as [Main] does, but prints an error to standard output
// as "error: ...", so that an Example test's // Output: block shows it.
func Example(run func(ctx context.Context, out io.Writer) error) {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Println("error:", err)
	}
}

// Run calls run with the test's context and returns what it printed. It
// fails the test, showing that output, when run returns an error.
func Run(t testing.TB, run func(ctx context.Context, out io.Writer) error) string {
	t.Helper()
	var out strings.Builder
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	return out.String()
}
