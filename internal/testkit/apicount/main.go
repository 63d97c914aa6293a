// Command apicount counts the exported names of every public package of
// the repository: functions, types, methods, struct fields, and constants
// and variables, with the printing methods (String, GoString, Format,
// LogValue) counted apart, those generated into print_gen.go files apart
// from those written by hand. It
// parses the non-test files of each directory with go/parser alone, so it
// runs against a checkout of any commit:
//
//	git worktree add /tmp/before f7e7cee
//	go run ./internal/testkit/apicount /tmp/before .
//
// With one directory it prints that tree's counts; with two it prints
// before and after side by side. The last column, "outside generated",
// is every name but the generated printing methods: what a reader of the
// API learns. Its test bounds the printing methods written by hand across
// the repository (maxHandPrinting). Packages named main, directories named
// internal or testdata and everything below them are not public API and
// are skipped.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// counts are one package's exported names.
type counts struct {
	Funcs, Types, Methods, Fields, Values int
	// Generated and Printing are the printing methods of print_gen.go
	// files and those written by hand.
	Generated, Printing int
}

// total is every name counted, printing included.
func (c counts) total() int {
	return c.Funcs + c.Types + c.Methods + c.Fields + c.Values + c.Generated + c.Printing
}

// outside is every name but the generated printing methods.
func (c counts) outside() int { return c.total() - c.Generated }

func (c *counts) add(o counts) {
	c.Funcs += o.Funcs
	c.Types += o.Types
	c.Methods += o.Methods
	c.Fields += o.Fields
	c.Values += o.Values
	c.Generated += o.Generated
	c.Printing += o.Printing
}

// printing names the methods counted apart.
var printing = map[string]bool{"String": true, "GoString": true, "Format": true, "LogValue": true}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: apicount DIR [AFTER-DIR]")
		os.Exit(2)
	}
	var trees []map[string]counts
	for _, dir := range os.Args[1:] {
		t, err := countTree(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apicount:", err)
			os.Exit(1)
		}
		trees = append(trees, t)
	}
	writeTable(os.Stdout, trees)
}

// countTree counts every public package below root, keyed by its
// directory relative to root.
func countTree(root string) (map[string]counts, error) {
	out := map[string]counts{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "internal" || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		c, ok, err := countDir(path)
		if err != nil || !ok {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = c
		return nil
	})
	return out, err
}

// countDir counts the exported names of the package in dir; ok is false
// when dir holds no non-test Go files or a command.
func countDir(dir string) (counts, bool, error) {
	var c counts
	fset := token.NewFileSet()
	// Every source file is counted, whatever its build constraints: the
	// count is of the source, on every platform at once.
	//lint:ignore SA1019 the deprecation is about build tags, which must not filter here
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		return c, false, err
	}
	found := false
	for name, pkg := range pkgs {
		if name == "main" || strings.HasSuffix(name, "_test") {
			continue
		}
		found = true
		for fname, f := range pkg.Files {
			countFile(&c, f, filepath.Base(fname) == "print_gen.go")
		}
	}
	return c, found, nil
}

// countFile adds the exported names declared in f.
func countFile(c *counts, f *ast.File, generated bool) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				c.Funcs++
				continue
			}
			if !ast.IsExported(receiverName(d.Recv.List[0].Type)) {
				continue
			}
			if generated {
				c.Generated++
			} else if printing[d.Name.Name] {
				c.Printing++
			} else {
				c.Methods++
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					c.Types++
					c.Fields += exportedFields(s.Type)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							c.Values++
						}
					}
				}
			}
		}
	}
}

// exportedFields counts the exported fields of a struct type, embedded
// exported types included, and the methods of an interface type.
func exportedFields(t ast.Expr) int {
	var list *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return 0
	}
	n := 0
	for _, f := range list.List {
		if len(f.Names) == 0 {
			if ast.IsExported(receiverName(f.Type)) {
				n++
			}
			continue
		}
		for _, name := range f.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}

// receiverName is the type name of a receiver or embedded field: T, *T,
// T[P], pkg.T.
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// writeTable prints one row per package: its counts, or before → after.
func writeTable(w io.Writer, trees []map[string]counts) {
	seen := map[string]bool{}
	for _, t := range trees {
		for p := range t {
			seen[p] = true
		}
	}
	pkgs := make([]string, 0, len(seen))
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	fmt.Fprintln(w, "| package | funcs | types | methods | fields | consts+vars | printing, generated | printing, by hand | total | outside generated |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	sums := make([]counts, len(trees))
	for _, p := range pkgs {
		row := make([]counts, len(trees))
		present := make([]bool, len(trees))
		for i, t := range trees {
			row[i], present[i] = t[p]
			sums[i].add(row[i])
		}
		if sum(row) == 0 {
			continue
		}
		writeRow(w, p, row, present)
	}
	all := make([]bool, len(trees))
	for i := range all {
		all[i] = true
	}
	writeRow(w, "**all**", sums, all)
}

// sum is the total of every count in row.
func sum(row []counts) int {
	n := 0
	for _, c := range row {
		n += c.total()
	}
	return n
}

func writeRow(w io.Writer, name string, row []counts, present []bool) {
	cell := func(get func(counts) int) string {
		parts := make([]string, len(row))
		for i, c := range row {
			if !present[i] {
				parts[i] = "–"
				continue
			}
			parts[i] = fmt.Sprint(get(c))
		}
		if len(parts) == 2 && parts[0] == parts[1] {
			return parts[0]
		}
		return strings.Join(parts, " → ")
	}
	fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
		cell(func(c counts) int { return c.Funcs }),
		cell(func(c counts) int { return c.Types }),
		cell(func(c counts) int { return c.Methods }),
		cell(func(c counts) int { return c.Fields }),
		cell(func(c counts) int { return c.Values }),
		cell(func(c counts) int { return c.Generated }),
		cell(func(c counts) int { return c.Printing }),
		cell(counts.total),
		cell(counts.outside))
}
