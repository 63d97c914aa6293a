package readmetest

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
// Lower-case words in brackets ("[redacted]") are prose, not links.
var linkLike = regexp.MustCompile(`(?:^|[\s\p{P}])(\[\*?(?:[A-Z]\w*|[a-z]\w*\.[A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)*\])(?:$|[\s\p{P}])`)

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
				var fields []*ast.Field
				switch typ := ts.Type.(type) {
				case *ast.StructType:
					fields = typ.Fields.List
				case *ast.InterfaceType:
					fields = typ.Methods.List
				}
				for _, fld := range fields {
					for _, n := range fld.Names {
						out[ts.Name.Name+"."+n.Name] = true
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

// modulePackages returns the directory and import path of every package
// of this module (examples and internal packages included).
func modulePackages(t *testing.T, goCmd string) [][2]string {
	t.Helper()
	out, err := exec.Command(goCmd, "list", "-f", "{{.Dir}}\t{{.ImportPath}}", "github.com/tppkit/psd2/...").Output()
	require.NoError(t, err)
	var pkgs [][2]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, path, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		pkgs = append(pkgs, [2]string{dir, path})
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// hasSource reports whether dir holds a Go file that is not a test.
func hasSource(t *testing.T, dir string) bool {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

// TestDocLinksResolve: every [Name] link in the comments of the module's
// packages names something that exists, in the package or in a package it
// imports, so that go doc and pkg.go.dev render it as a link (a link to a
// missing name is shown as plain brackets).
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to find imported packages")
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
	var bad []string
	for _, pkg := range modulePackages(t, goCmd) {
		dir, path := pkg[0], pkg[1]
		if !hasSource(t, dir) {
			continue // tests only, as this package
		}
		fset := token.NewFileSet()
		p, files := sourcePackage(t, fset, dir, path)
		parse := p.Parser()
		local := symbols(p, files)
		for _, f := range files {
			for _, cg := range f.Comments {
				where := fset.Position(cg.Pos())
				at := fmt.Sprintf("%s/%s:%d", strings.TrimPrefix(path, "github.com/tppkit/psd2/"), filepath.Base(where.Filename), where.Line)
				walkText(parse.Parse(cg.Text()), func(s string) {
					for _, m := range linkLike.FindAllStringSubmatch(s, -1) {
						bad = append(bad, fmt.Sprintf("%s: %s does not resolve", at, m[1]))
					}
				}, func(l *comment.DocLink) {
					name := l.Name
					if l.Recv != "" {
						name = l.Recv + "." + l.Name
					}
					syms := local
					if l.ImportPath != "" && l.ImportPath != path {
						if l.Name == "" {
							return // a link to a package
						}
						syms = lookupForeign(l.ImportPath)
					}
					if !syms[name] {
						bad = append(bad, fmt.Sprintf("%s: [%s] names nothing in %s", at, name, l.ImportPath))
					}
				})
			}
		}
	}
	require.Empty(t, bad, "doc links that do not resolve")
}

// TestPackageDocSnippetsCompile type-checks the Go code block of the
// package documentation of the packages whose overview shows their use,
// inside a function that declares what the blocks use (ctx, c, cb, sid,
// psuID, ip, ids, opts, standingOrder), each block in a scope nested in
// the one before, so that an overview cannot drift from the API.
func TestPackageDocSnippetsCompile(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to compile the snippets")
	// Written below testdata (which ./... patterns skip) so that they
	// compile inside this module with its go.mod and go.sum.
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	root, err := os.MkdirTemp("testdata", "docsnippet-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	var dirs []string
	for _, name := range []string{"accounts", "basket", "payments", "tpp"} {
		p, _ := sourcePackage(t, token.NewFileSet(), filepath.Join("..", "..", name), "github.com/tppkit/psd2/"+name)
		var code []string
		for _, b := range p.Parser().Parse(p.Doc).Content {
			if c, ok := b.(*comment.Code); ok {
				code = append(code, c.Text)
			}
		}
		require.NotEmpty(t, code, "%s: the package documentation shows no code", name)
		// Each block uses every variable it declares, so that an unused
		// one is not an error of the wrapper.
		var blocks []string
		for _, body := range code {
			fn, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc f() {\n"+body+"\n}", 0)
			require.NoError(t, err, "%s: the snippet does not parse as statements:\n%s", name, body)
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
			blocks = append(blocks, body+"\n"+strings.Join(use, "\n"))
		}
		// A later block may use what an earlier one declared and declare
		// its names again: each is nested in the one before.
		nested := ""
		for i := len(blocks) - 1; i >= 0; i-- {
			nested = "{\n" + blocks[i] + "\n" + nested + "\n}"
		}
		src := `package snippet

import (
	"context"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/tpp"
)

var (
	_ accounts.Service
	_ basket.Service
	_ money.Amount
	_ payments.Service
	_ tpp.Service
)

func snippet(ctx context.Context, c *client.Client, cb, sid, psuID, ip string, ids []string,
	opts []client.RequestOption, standingOrder any) error {
` + nested + `
	return nil
}
`
		dir := filepath.Join(root, name)
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "snippet.go"), []byte(src), 0o644))
		dirs = append(dirs, "./"+filepath.ToSlash(dir))
	}
	out, err := exec.Command(goCmd, append([]string{"vet"}, dirs...)...).CombinedOutput()
	require.NoError(t, err, "a package documentation's code block does not compile (testdata/docsnippet-*/<package>):\n%s", out)
}
