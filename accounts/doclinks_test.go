package accounts_test

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// linkLike is text that reads as a doc link ([Name], [*Name],
// [Name.Method], [pkg.Name.Method]) where the comment syntax would make
// it one: a link the parser could not resolve stays such plain text.
var linkLike = regexp.MustCompile(`(?:^|[\s\p{P}])(\[\*?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\])(?:$|[\s\p{P}])`)

// sourcePackage parses the non-test Go files of dir.
func sourcePackage(t *testing.T, fset *token.FileSet, dir, importPath string) (*doc.Package, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files, dir)
	p, err := doc.NewFromFiles(fset, files, importPath, doc.PreserveAST)
	require.NoError(t, err)
	return p, files
}

// symbols returns the exported names of p a doc link can name: "Name"
// and "Type.Method" or "Type.Field".
func symbols(p *doc.Package, files []*ast.File) map[string]bool {
	out := map[string]bool{}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				out[n] = true
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		out[f.Name] = true
	}
	for _, typ := range p.Types {
		out[typ.Name] = true
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range typ.Funcs {
			out[f.Name] = true
		}
		for _, m := range typ.Methods {
			out[typ.Name+"."+m.Name] = true
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fld := range st.Fields.List {
						for _, n := range fld.Names {
							out[ts.Name.Name+"."+n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

// walkText calls fn on every plain text and doc link of d.
func walkText(d *comment.Doc, text func(string), link func(*comment.DocLink)) {
	var inline func([]comment.Text)
	inline = func(ts []comment.Text) {
		for _, x := range ts {
			switch x := x.(type) {
			case comment.Plain:
				text(string(x))
			case comment.Italic:
				text(string(x))
			case *comment.Link:
				inline(x.Text)
			case *comment.DocLink:
				link(x)
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			inline(b.Text)
		case *comment.Heading:
			inline(b.Text)
		case *comment.List:
			for _, it := range b.Items {
				for _, c := range it.Content {
					if p, ok := c.(*comment.Paragraph); ok {
						inline(p.Text)
					}
				}
			}
		}
	}
}

// TestDocLinksResolve: every [Name] link in the comments of accounts and
// internal/isodate names something that exists, in the package or in
// the package it imports, so that go doc and pkg.go.dev render it as a
// link (a link to a missing name is shown as plain brackets).
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to find imported packages")
	for _, pkg := range []struct{ dir, path string }{
		{".", "github.com/tppkit/psd2/accounts"},
		{filepath.Join("..", "internal", "isodate"), "github.com/tppkit/psd2/internal/isodate"},
	} {
		fset := token.NewFileSet()
		p, files := sourcePackage(t, fset, pkg.dir, pkg.path)
		parse := p.Parser()
		foreign := map[string]map[string]bool{} // import path: symbols
		lookupForeign := func(importPath string) map[string]bool {
			if syms, ok := foreign[importPath]; ok {
				return syms
			}
			out, err := exec.Command(goCmd, "list", "-f", "{{.Dir}}", importPath).Output()
			require.NoError(t, err, importPath)
			fp, ffiles := sourcePackage(t, token.NewFileSet(), strings.TrimSpace(string(out)), importPath)
			foreign[importPath] = symbols(fp, ffiles)
			return foreign[importPath]
		}
		local := symbols(p, files)
		var bad []string
		for _, f := range files {
			for _, cg := range f.Comments {
				where := fset.Position(cg.Pos())
				d := parse.Parse(cg.Text())
				walkText(d, func(s string) {
					for _, m := range linkLike.FindAllStringSubmatch(s, -1) {
						bad = append(bad, fmt.Sprintf("%s:%d: %s does not resolve", filepath.Base(where.Filename), where.Line, m[1]))
					}
				}, func(l *comment.DocLink) {
					name := l.Name
					if l.Recv != "" {
						name = l.Recv + "." + l.Name
					}
					syms := local
					if l.ImportPath != "" && l.ImportPath != pkg.path {
						if l.Name == "" {
							return // a link to a package
						}
						syms = lookupForeign(l.ImportPath)
					}
					if !syms[name] {
						bad = append(bad, fmt.Sprintf("%s:%d: [%s] names nothing in %s", filepath.Base(where.Filename), where.Line, name, l.ImportPath))
					}
				})
			}
		}
		require.Empty(t, bad, "%s: doc links that do not resolve", pkg.path)
	}
}

// TestPackageDocSnippetCompiles type-checks the code block of the
// package documentation inside a function that declares what it uses
// (ctx, c, cb, sid, psuID, ip), so that the overview cannot drift from
// the API.
func TestPackageDocSnippetCompiles(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to compile the snippet")
	fset := token.NewFileSet()
	p, _ := sourcePackage(t, fset, ".", "github.com/tppkit/psd2/accounts")
	var code []string
	for _, b := range p.Parser().Parse(p.Doc).Content {
		if c, ok := b.(*comment.Code); ok {
			code = append(code, c.Text)
		}
	}
	require.Len(t, code, 1, "the package documentation has one code block")
	body := code[0]

	// Use every variable the snippet declares, so that an unused one is
	// not an error of the wrapper.
	fn, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc f() {\n"+body+"\n}", 0)
	require.NoError(t, err, "the snippet does not parse as statements:\n%s", body)
	var use []string
	ast.Inspect(fn, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
			for _, l := range a.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
					use = append(use, "_ = "+id.Name)
				}
			}
		}
		return true
	})
	src := `package snippet

import (
	"context"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

var _ accounts.Service

func snippet(ctx context.Context, c *client.Client, cb, sid, psuID, ip string) error {
` + body + "\n" + strings.Join(use, "\n") + `
	return nil
}
`
	// Written below testdata (which ./... patterns skip) so that it
	// compiles inside this module with its go.mod and go.sum.
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "docsnippet-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snippet.go"), []byte(src), 0o644))
	out, err := exec.Command(goCmd, "vet", "./"+filepath.ToSlash(dir)).CombinedOutput()
	require.NoError(t, err, "the package documentation's code block does not compile:\n%s\n%s", src, out)
}
