// Command testsum reads `go test -json` on stdin and prints what `go test`
// prints without -v (each package's ok, FAIL or "no test files" line, the
// output of failed tests, build errors), then one line for every test that
// skipped, with the reason it logged, so that a skipped PostgreSQL or
// Chromium test never reads as ok. .ci/test pipes into it:
//
//	go test -json ./... | go run .ci/testsum.go
//
// It prints each line as go test reports it, not at the end, and exits
// 0; the exit status of go test is what counts.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type skip struct{ pkg, test, reason string }

func main() {
	// Each line is written as its event arrives (a package's ok line as
	// the package ends), never held until go test is over.
	out := os.Stdout
	logs := map[[2]string][]string{} // (package, test) -> output lines
	var skips []skip
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(out, string(line)) // not an event: say it as it is
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "output":
			if e.Test == "" {
				switch t := strings.TrimSpace(e.Output); {
				case strings.HasPrefix(t, "ok "), strings.HasPrefix(t, "FAIL"), strings.HasPrefix(t, "?"):
					fmt.Fprint(out, e.Output)
					continue
				case t == "PASS", t == "" || strings.HasPrefix(t, "=== "):
					continue
				}
			}
			logs[key] = append(logs[key], e.Output)
		case "fail":
			for _, l := range logs[key] {
				fmt.Fprint(out, l)
			}
			delete(logs, key)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, reason(logs[key])})
			}
			delete(logs, key)
		case "pass":
			delete(logs, key)
		}
	}
	if len(skips) == 0 {
		return
	}
	fmt.Fprintf(out, "-- %d tests skipped:\n", len(skips))
	for _, s := range skips {
		fmt.Fprintf(out, "SKIP %s %s: %s\n", s.pkg, s.test, s.reason)
	}
}

// reason is what a skipped test logged, on one line, without the lines
// the test framework writes (=== RUN, --- SKIP).
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "no reason given"
	}
	r := strings.Join(parts, "; ")
	if len(r) > 200 {
		r = r[:200] + "…"
	}
	return r
}
