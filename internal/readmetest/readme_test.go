// Package readmetest compiles every Go block of the README, so that the
// README's tour cannot drift from the API.
package readmetest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goBlocks returns the ```go blocks of a Markdown document, each with the
// line it starts on.
func goBlocks(t *testing.T, md []byte) (blocks []string, lines []int) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(md))
	var cur *strings.Builder
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &strings.Builder{}
			lines = append(lines, n+1)
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "unterminated code block")
	return blocks, lines
}

var packageClause = regexp.MustCompile(`(?m)^package (\w+)`)

func TestReadmeBlocksCompile(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	blocks, lines := goBlocks(t, md)
	require.GreaterOrEqual(t, len(blocks), 3, "the README has lost its tour")

	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to compile the README")

	// The blocks are written below testdata (which ./... patterns skip) so
	// that they compile inside this module with its go.mod and go.sum.
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	root, err := os.MkdirTemp("testdata", "readme-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })

	var pkgs []string
	for i, b := range blocks {
		m := packageClause.FindStringSubmatch(b)
		require.NotNil(t, m, "README block at line %d has no package clause: every block must be a whole file", lines[i])
		dir := filepath.Join(root, fmt.Sprintf("block%02d", i))
		require.NoError(t, os.Mkdir(dir, 0o755))
		name := "main.go"
		if strings.HasSuffix(m[1], "_test") {
			name = "block_test.go"
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644))
		pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
	}

	// go vet type-checks both ordinary and test files.
	cmd := exec.Command(goCmd, append([]string{"vet"}, pkgs...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "README blocks do not compile (block NN = the NNth ```go block, 0-based):\n%s", out)
}
