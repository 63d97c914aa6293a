package readmetest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCISummaryStreams: .ci/testsum.go, which .ci/test pipes go test
// -json into, prints a package's line as soon as the package's event
// arrives, while go test is still running, not when it is over: a run
// of many minutes is never silent.
func TestCISummaryStreams(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", ".ci", "testsum.go")
	_, err := os.ReadFile(src) // so that go test's cache knows the file
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "testsum")
	out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
	require.NoError(t, err, "%s", out)

	cmd := exec.CommandContext(t.Context(), bin)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	// One package ends; go test goes on (stdin stays open).
	_, err = stdin.Write([]byte(`{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.1s\n"}` + "\n" +
		`{"Action":"pass","Package":"example.com/a"}` + "\n"))
	require.NoError(t, err)
	select {
	case l := <-lines:
		assert.Equal(t, "ok  \texample.com/a\t0.1s", l)
	case <-time.After(time.Minute):
		// A bound on waiting, not a measure of speed: the line never came
		// while the input stayed open.
		t.Fatal("no line while go test runs: testsum holds its output until the end")
	}
	_, err = stdin.Write([]byte(`{"Action":"output","Package":"example.com/b","Output":"FAIL\texample.com/b\t0.2s\n"}` + "\n"))
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	require.NoError(t, cmd.Wait())
	assert.Equal(t, "FAIL\texample.com/b\t0.2s", strings.Join(rest, "\n"))
}
