// Command gen writes the printing methods of a package's types from
// their one declaration, the form method, in the package's forms.go:
//
//	// String describes a: ...
//	func (a Account) form() *redact.Form { ... }
//
// For every type with such a method (no parameters, returning
// *redact.Form, on T or on *T) it writes String (with the form method's
// doc comment), GoString, Format and LogValue to print_gen.go, so that
// every fmt verb and both log/slog handlers print the redacted form, and
// no type can be left with fewer than the four. Two more declarations
// change what is written:
//
//   - shown() string: the type's String is not its form but a value in
//     clear, by design (a link the PSU's browser is sent to). String is
//     shown, with shown's doc comment; GoString (%#v) and LogValue are the
//     form, whose doc comment is then GoString's. Format writes GoString
//     for %#v and String for every other verb.
//   - view() V: MarshalJSON is json.Marshal of view (the redacted JSON
//     form), with view's doc comment.
//
// A type that is an error (it has an Error method, on T or on *T) prints
// as its message, as fmt and log/slog print any error: String and
// LogValue are Error, Format writes GoString for %#v and Error for every
// other verb, and GoString is the form, whose doc comment is GoString's.
//
// For a form on *T the methods are on *T: form and shown handle a nil
// receiver themselves (redact.Nil); MarshalJSON writes null and an
// error's String "<nil>" for it. Packages run it with
//
//	//go:generate go run ../internal/redact/gen
//
// and its test fails when a checked-in print_gen.go is stale.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Output is the name of the generated file.
const Output = "print_gen.go"

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	src, err := Generate(dir)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Output), src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// decl is one declaration method of a type: form, shown or view.
type decl struct {
	recv string // the receiver's name
	ptr  bool   // a *T receiver
	doc  string
	pos  token.Pos
}

// formType is a type with a form method and what else it declares.
type formType struct {
	name        string
	form        decl
	shown, view *decl
	isError     bool
}

// Generate returns print_gen.go for the package in dir.
func Generate(dir string) ([]byte, error) {
	fset := token.NewFileSet()
	// Every source file of the package is read, whatever its build
	// constraints: the generator reads source, it does not build it.
	//lint:ignore SA1019 the deprecation is about build tags, which must not filter here
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go") && fi.Name() != Output
	}, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("gen: %d packages in %s", len(pkgs), dir)
	}
	var pkgName string
	byName := map[string]*formType{}
	var order []*formType
	showns, views := map[string]decl{}, map[string]decl{}
	var shownOrder, viewOrder []string
	errs := map[string]bool{}
	for name, pkg := range pkgs {
		pkgName = name
		files := make([]string, 0, len(pkg.Files))
		for f := range pkg.Files {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, fn := range files {
			for _, d := range pkg.Files[fn].Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Type.Params.List) != 0 ||
					fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
					continue
				}
				kind := fd.Name.Name
				res := fd.Type.Results.List[0].Type
				switch kind {
				case "form":
					st, ok := res.(*ast.StarExpr)
					if !ok {
						continue
					}
					if sel, ok := st.X.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Form" {
						continue
					}
				case "shown", "Error":
					if id, ok := res.(*ast.Ident); !ok || id.Name != "string" {
						continue
					}
				case "view":
				default:
					continue
				}
				typ, dc, err := receiver(fset, fd)
				if err != nil {
					if kind == "Error" {
						continue
					}
					return nil, err
				}
				switch kind {
				case "form":
					t := &formType{name: typ, form: dc}
					byName[typ] = t
					order = append(order, t)
				case "shown":
					showns[typ] = dc
					shownOrder = append(shownOrder, typ)
				case "view":
					views[typ] = dc
					viewOrder = append(viewOrder, typ)
				case "Error":
					errs[typ] = true
				}
			}
		}
	}
	for _, n := range shownOrder {
		t, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("gen: %s: %s has a shown method but no form method", fset.Position(showns[n].pos), n)
		}
		d := showns[n]
		t.shown = &d
	}
	for _, n := range viewOrder {
		t, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("gen: %s: %s has a view method but no form method", fset.Position(views[n].pos), n)
		}
		d := views[n]
		t.view = &d
	}
	for _, t := range order {
		t.isError = errs[t.name]
		if err := t.check(fset); err != nil {
			return nil, err
		}
	}
	return write(pkgName, order)
}

// receiver returns the type name of fd's receiver and fd as a decl.
func receiver(fset *token.FileSet, fd *ast.FuncDecl) (string, decl, error) {
	r := fd.Recv.List[0]
	typ, ptr := r.Type, false
	if st, ok := typ.(*ast.StarExpr); ok {
		typ, ptr = st.X, true
	}
	id, ok := typ.(*ast.Ident)
	if !ok || len(r.Names) != 1 || r.Names[0].Name == "_" {
		return "", decl{}, fmt.Errorf("gen: %s: %s needs a named receiver of a named type", fset.Position(fd.Pos()), fd.Name.Name)
	}
	doc := ""
	if fd.Doc != nil {
		doc = fd.Doc.Text()
	}
	return id.Name, decl{recv: r.Names[0].Name, ptr: ptr, doc: doc, pos: fd.Pos()}, nil
}

// check refuses a declaration the generated methods could not describe:
// a doc comment that is not the generated method's, receivers that
// differ, an error with a shown method.
func (t *formType) check(fset *token.FileSet) error {
	at := func(d decl) string { return fset.Position(d.pos).String() }
	formDoc := "String "
	if t.shown != nil || t.isError {
		formDoc = "GoString "
	}
	if !strings.HasPrefix(t.form.doc, formDoc) {
		return fmt.Errorf("gen: %s: the doc comment of %s.form is %s's and starts with %q", at(t.form), t.name, strings.TrimSpace(formDoc), formDoc)
	}
	for _, d := range []*decl{t.shown, t.view} {
		if d != nil && (d.ptr != t.form.ptr || d.recv != t.form.recv) {
			return fmt.Errorf("gen: %s: the receiver of %s's declarations differ from form's (%s)", at(*d), t.name, t.form.recv)
		}
	}
	if t.shown != nil {
		if t.isError {
			return fmt.Errorf("gen: %s: %s is an error: it prints as Error, not a shown method", at(*t.shown), t.name)
		}
		if !strings.HasPrefix(t.shown.doc, "String ") {
			return fmt.Errorf("gen: %s: the doc comment of %s.shown is String's and starts with \"String \"", at(*t.shown), t.name)
		}
	}
	if t.view != nil && !strings.HasPrefix(t.view.doc, "MarshalJSON ") {
		return fmt.Errorf("gen: %s: the doc comment of %s.view is MarshalJSON's and starts with \"MarshalJSON \"", at(*t.view), t.name)
	}
	return nil
}

// write renders print_gen.go.
func write(pkgName string, types []*formType) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/redact/gen from the form methods; DO NOT EDIT.\n\npackage %s\n\n", pkgName)
	b.WriteString("import (\n")
	for _, t := range types {
		if t.view != nil {
			b.WriteString("\t\"encoding/json\"\n")
			break
		}
	}
	b.WriteString("\t\"fmt\"\n\t\"log/slog\"\n\n\t\"github.com/tppkit/psd2/internal/redact\"\n)\n")
	for _, t := range types {
		r, n := t.form.recv, t.name
		if t.form.ptr {
			n = "*" + n
		}
		st := "st"
		if r == st {
			st = "state"
		}
		b.WriteString("\n")
		switch {
		case t.isError:
			b.WriteString("// String is Error: fmt and log/slog print the error's message.\n")
			if t.form.ptr {
				fmt.Fprintf(&b, "func (%s %s) String() string {\n\tif %s == nil {\n\t\treturn \"<nil>\"\n\t}\n\treturn %s.Error()\n}\n\n", r, n, r, r)
			} else {
				fmt.Fprintf(&b, "func (%s %s) String() string { return %s.Error() }\n\n", r, n, r)
			}
			comment(&b, t.form.doc)
			fmt.Fprintf(&b, "func (%s %s) GoString() string { return %s.form().String() }\n\n", r, n, r)
			fmt.Fprintf(&b, "// Format prints GoString for %%#v and Error under every other verb (%%q\n// quoted): fmt would otherwise print the fields one by one for verbs\n// such as %%d and %%x, which it does not print through Error.\n")
			fmt.Fprintf(&b, "func (%s %s) Format(%s fmt.State, verb rune) { redact.Format(%s, verb, %s) }\n\n", r, n, st, st, r)
			fmt.Fprintf(&b, "// LogValue makes log/slog print %s as its message (Error), as it prints\n// any other error.\n", r)
			fmt.Fprintf(&b, "func (%s %s) LogValue() slog.Value { return slog.StringValue(%s.String()) }\n", r, n, r)
		case t.shown != nil:
			comment(&b, t.shown.doc)
			fmt.Fprintf(&b, "func (%s %s) String() string { return %s.shown() }\n\n", r, n, r)
			comment(&b, t.form.doc)
			fmt.Fprintf(&b, "func (%s %s) GoString() string { return %s.form().String() }\n\n", r, n, r)
			fmt.Fprintf(&b, "// Format prints GoString for %%#v and String under every other verb (%%q\n// quoted): fmt would otherwise print the fields one by one for verbs\n// such as %%d and %%x.\n")
			fmt.Fprintf(&b, "func (%s %s) Format(%s fmt.State, verb rune) { redact.Format(%s, verb, %s) }\n\n", r, n, st, st, r)
			fmt.Fprintf(&b, "// LogValue makes log/slog print %s as a group of the facts GoString shows.\n", r)
			fmt.Fprintf(&b, "func (%s %s) LogValue() slog.Value { return %s.form().LogValue() }\n", r, n, r)
		default:
			comment(&b, t.form.doc)
			fmt.Fprintf(&b, "func (%s %s) String() string { return %s.form().String() }\n\n", r, n, r)
			fmt.Fprintf(&b, "// GoString is String, for %%#v.\nfunc (%s %s) GoString() string { return %s.String() }\n\n", r, n, r)
			fmt.Fprintf(&b, "// Format prints String under every fmt verb (%%q quoted): fmt would\n// otherwise print the fields one by one for verbs such as %%d and %%x.\n")
			fmt.Fprintf(&b, "func (%s %s) Format(%s fmt.State, verb rune) { redact.Write(%s, verb, %s.String()) }\n\n", r, n, st, st, r)
			fmt.Fprintf(&b, "// LogValue makes log/slog print %s as a group of the facts String shows.\n", r)
			fmt.Fprintf(&b, "func (%s %s) LogValue() slog.Value { return %s.form().LogValue() }\n", r, n, r)
		}
		if t.view != nil {
			b.WriteString("\n")
			comment(&b, t.view.doc)
			if t.form.ptr {
				fmt.Fprintf(&b, "func (%s %s) MarshalJSON() ([]byte, error) {\n\tif %s == nil {\n\t\treturn []byte(\"null\"), nil\n\t}\n\treturn json.Marshal(%s.view())\n}\n", r, n, r, r)
			} else {
				fmt.Fprintf(&b, "func (%s %s) MarshalJSON() ([]byte, error) { return json.Marshal(%s.view()) }\n", r, n, r)
			}
		}
	}
	return format.Source(b.Bytes())
}

// comment writes doc as a // comment.
func comment(b *bytes.Buffer, doc string) {
	for _, l := range strings.Split(strings.TrimRight(doc, "\n"), "\n") {
		b.WriteString(strings.TrimRight("// "+l, " ") + "\n")
	}
}
