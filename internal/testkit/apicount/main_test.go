package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir, name, src string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
}

func TestCountTree(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "p"), "p.go", `package p

const A, b = 1, 2
var V int

type T struct {
	X, y int
	Embedded
	*Other
}
type Embedded struct{ Z int }
type Other struct{}
type I interface{ M(); n() }
type hidden struct{ W int }

func F()      {}
func f()      {}
func (T) M()  {}
func (*T) m() {}
func (hidden) N() {}
func (T) String() string { return "" }
func (T) Format() {}
func G[X any]() {}
`)
	write(t, filepath.Join(root, "p"), "print_gen.go", "package p\n\nfunc (Other) String() string { return \"\" }\nfunc (Other) GoString() string { return \"\" }\n")
	write(t, filepath.Join(root, "p"), "p_test.go", "package p\n\nfunc TestX() {}\n")
	write(t, filepath.Join(root, "p", "internal", "q"), "q.go", "package q\n\nfunc Q() {}\n")
	write(t, filepath.Join(root, "cmd"), "main.go", "package main\n\nfunc Main() {}\n")

	tree, err := countTree(root)
	require.NoError(t, err)
	require.Equal(t, map[string]counts{"p": {
		Funcs:     2, // F, G
		Types:     4, // T, Embedded, Other, I
		Methods:   1, // T.M
		Fields:    5, // T.X, T.Embedded, T.Other, Embedded.Z, I.M
		Values:    2, // A, V
		Generated: 2,
		Printing:  2, // T.String, T.Format
	}}, tree)

	var out strings.Builder
	writeTable(&out, []map[string]counts{{}, tree})
	require.Contains(t, out.String(), "| p | – → 2 | – → 4 | – → 1 | – → 5 | – → 2 | – → 2 | – → 2 | – → 18 |")
	require.Contains(t, out.String(), "| **all** | 0 → 2 |")
}
