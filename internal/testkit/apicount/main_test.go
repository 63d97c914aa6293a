package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	require.Contains(t, out.String(), "| p | – → 2 | – → 4 | – → 1 | – → 5 | – → 2 | – → 2 | – → 2 | – → 18 | – → 16 |")
	require.Contains(t, out.String(), "| **all** | 0 → 2 |")
}

// maxHandPrinting bounds the printing methods (String, GoString, Format,
// LogValue of exported types) written by hand in the repository's public
// packages: the rest are generated from a form (internal/redact/gen).
// What stays by hand is a value's or an enum's String (money.Amount,
// date.Date, payments.Product, txsync.What, ...) and what is not yet
// converted.
const maxHandPrinting = 40

// TestHandWrittenPrinting counts the printing methods written by hand
// across the repository and fails above maxHandPrinting.
func TestHandWrittenPrinting(t *testing.T) {
	t.Parallel()
	tree, err := countTree(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	var all counts
	var by []string
	for p, c := range tree {
		all.add(c)
		if c.Printing > 0 {
			by = append(by, fmt.Sprintf("%s %d", p, c.Printing))
		}
	}
	sort.Strings(by)
	t.Logf("printing methods: %d by hand (%s), %d generated", all.Printing, strings.Join(by, ", "), all.Generated)
	require.LessOrEqual(t, all.Printing, maxHandPrinting, "printing methods written by hand: declare a form and run go generate")
}
