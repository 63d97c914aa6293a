// Package childproc runs copies of a test binary as real child processes,
// for tests that must show a guarantee holds across processes (file
// locks, take-once), not only across goroutines. It is test support,
// internal to the module.
package childproc

import (
	"bufio"
	"flag"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Child is one running copy of the test binary. Write to Stdin to drive
// it; read its lines with Line; Wait for it with Cmd.Wait.
type Child struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	out   *bufio.Scanner
}

// Start runs n copies of the test binary, each running only the test
// named test with env added to its environment, and returns once each has
// printed "ready". The children end with the test at the latest.
func Start(t *testing.T, n int, test string, env ...string) []*Child {
	t.Helper()
	cs := make([]*Child, n)
	for i := range cs {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), env...)
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Wait() })
		cs[i] = &Child{Cmd: cmd, Stdin: stdin, out: bufio.NewScanner(stdout)}
		require.Equal(t, "ready", cs[i].Line(t, ""), "child %d", i)
	}
	return cs
}

// Line returns the child's next output line starting with prefix (any
// line when prefix is ""), skipping the test framework's own lines.
func (c *Child) Line(t *testing.T, prefix string) string {
	t.Helper()
	for c.out.Scan() {
		l := c.out.Text()
		if strings.HasPrefix(l, "=== ") || (prefix != "" && !strings.HasPrefix(l, prefix)) {
			continue
		}
		return l
	}
	require.NoError(t, c.out.Err())
	t.Fatalf("child ended without a %q line", prefix)
	return ""
}

// LeaveOut, called from TestMain, leaves the test named test, the child
// process of another test, out of a normal run (one without env in its
// environment) so that it is neither run nor reported as skipped: it
// sets -test.skip to that test unless the run has a -skip of its own.
// It parses the command line.
func LeaveOut(env, test string) {
	flag.Parse()
	if os.Getenv(env) != "" {
		return
	}
	if s := flag.Lookup("test.skip"); s != nil && s.Value.String() == "" {
		_ = s.Value.Set("^" + test + "$")
	}
}
