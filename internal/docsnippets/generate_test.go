package docsnippets_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/docsnippets"
)

// TestGenerateRefusesWhatWouldNotRun: a block with := that is not Go,
// or that uses a name the givens do not give, fails the generation,
// naming the doc.go line; a block without := (a table, JSON, a shell
// line) is not a snippet.
func TestGenerateRefusesWhatWouldNotRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(pkg, doc string) {
		require.NoError(t, os.MkdirAll(filepath.Join(root, pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, pkg, "doc.go"), []byte(doc), 0o644))
	}
	write("a", "// Package a.\n//\n//\tx, err := a.New(c)\n//\tif err != nil { ... }\n//\n//\tGET /v1/x  200 {id}\n//\n//\tcd a && go test ./...\npackage a\n")
	write("b", "// Package b.\n//\n//\tx, err := b.New(nope)\npackage b\n")
	write("main", "// Command m.\n//\n//\tx := 1\npackage main\n")
	pkgs, err := docsnippets.Packages(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, pkgs, "a command's doc is not a package doc")
	snippets, err := docsnippets.Extract(root, pkgs)
	require.NoError(t, err)
	require.Len(t, snippets, 2, "the table and the shell line are no snippets")
	assert.Equal(t, "a/doc.go:3", snippets[0].Name())
	cfg := docsnippets.Config{Package: "p", Imports: map[string]string{"a": "example.com/a", "b": "example.com/b"}, Givens: map[string]string{"c": "g.c"}}
	_, err = docsnippets.Generate(cfg, snippets[:1])
	assert.ErrorContains(t, err, "a/doc.go:3 is not Go statements")
	_, err = docsnippets.Generate(cfg, snippets[1:])
	assert.ErrorContains(t, err, "b/doc.go:3 uses nope, which the module's givens do not give")
}
