package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMain lets this test binary be the emulator process: run starts
// os.Executable with -emulator, which here is the test binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-emulator" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestRun measures a few accounts with the emulator in a process of its
// own and in this process: every run and round is reported, with both
// sides' rates, the ratio and the load, and the summary gives the first
// and the later rounds' ratios. It asserts the report, never a figure.
func TestRun(t *testing.T) {
	for _, inProcess := range []bool{false, true} {
		var out strings.Builder
		o := options{Accounts: 24, Runs: 2, Rounds: 2, Chunk: 10, Warm: 4, Dir: t.TempDir(), InProcess: inProcess}
		if err := run(t.Context(), &out, o); err != nil {
			t.Fatalf("inprocess=%v: %v\n%s", inProcess, err, out.String())
		}
		for _, re := range []string{
			`(?m)^24 accounts per side, 2 runs of 2 rounds, chunks of 10, the default workers, the emulator in (a process of its own|this process)$`,
			`(?m)^  creating a file in the run's store directory: \d+ µs of this process's CPU \(\d+ µs wall\) before the rounds, \d+ µs \(\d+ µs\) after, over 200 files each$`,
			`(?m)^run 2 \(load \S+ \S+ \S+, after \S+ \S+ \S+\):$`,
			`(?m)^  round 1 \(first, new budget keys\): memory \d+ accounts/s, file \d+ accounts/s, file/memory \d+\.\d{3}; per account `,
			`(?m)^  round 2: memory \d+ accounts/s, file \d+ accounts/s, file/memory \d+\.\d{3}; `,
			`(?m)^file/memory, first round: median \d+\.\d{3} \(\d+\.\d{3}–\d+\.\d{3}\) over 2 runs$`,
			`(?m)^file/memory, later rounds: median \d+\.\d{3} \(\d+\.\d{3}–\d+\.\d{3}\) over 2 rounds of 2 runs$`,
		} {
			if !regexp.MustCompile(re).MatchString(out.String()) {
				t.Errorf("inprocess=%v: output does not match %s:\n%s", inProcess, re, out.String())
			}
		}
	}
}

// TestRunRefusesBadOptions: a fifth round would be over the bank's
// budget of 4 calls a day.
func TestRunRefusesBadOptions(t *testing.T) {
	for _, o := range []options{{Accounts: 10, Runs: 1, Rounds: 5, Chunk: 5}, {Accounts: 0, Runs: 1, Rounds: 1, Chunk: 5}} {
		if err := run(t.Context(), &strings.Builder{}, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// createCost creates its files in the directory it is given, under
// names of its own, and leaves them there (removing them would slow the
// file creations it is measured before); a directory it cannot write in
// is an error, not a figure.
func TestCreateCost(t *testing.T) {
	dir := t.TempDir()
	for _, label := range []string{"before", "after"} {
		cpu, wall, err := createCost(dir, label, 20)
		if err != nil {
			t.Fatal(err)
		}
		if wall <= 0 || cpu < 0 {
			t.Errorf("cpu %v, wall %v per file", cpu, wall)
		}
	}
	left, err := os.ReadDir(dir)
	if err != nil || len(left) != 40 {
		t.Errorf("%d files left, want 40 (%v)", len(left), err)
	}
	for _, e := range left {
		if !strings.HasPrefix(e.Name(), probePrefix) {
			t.Errorf("file %q is not the probe's", e.Name())
		}
	}
	if _, _, err := createCost(filepath.Join(dir, "missing"), "before", 1); err == nil {
		t.Error("no error for a directory that does not exist")
	}
}
