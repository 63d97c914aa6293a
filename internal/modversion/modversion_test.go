package modversion

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const core = "github.com/tppkit/psd2"

var semver = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// root is the repository's root, two directories up.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root: %v", err)
	}
	return r
}

// nestedModules lists the go.mod files of the modules below the root.
func nestedModules(t *testing.T, r string) []string {
	t.Helper()
	var mods []string
	err := filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != r {
			mods = append(mods, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mods
}

// parse returns the versions the require directives of a go.mod's text
// give the core, and the right-hand sides ("=> path") of its replace
// directives for the core, in single-line and block form.
func parse(gomod string) (requires, replaces []string) { return parseFor(gomod, core) }

// parseFor is parse for the module path mod.
func parseFor(gomod, mod string) (requires, replaces []string) {
	block := ""
	for _, line := range strings.Split(gomod, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case len(f) == 1 && f[0] == ")":
			block = ""
			continue
		case len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		case block == "":
			f = append([]string{f[0]}, f[1:]...)
		default:
			f = append([]string{block}, f...)
		}
		if len(f) < 3 || f[1] != mod {
			continue
		}
		switch f[0] {
		case "require":
			requires = append(requires, f[2])
		case "replace":
			replaces = append(replaces, strings.Join(f[2:], " "))
		}
	}
	return requires, replaces
}

func TestParse(t *testing.T) {
	req, rep := parse("module x\n\nrequire " + core + " v1.2.3\nrequire (\n\tother v1.0.0\n\t" + core + " v0.1.0 // indirect\n)\nreplace " + core + " => ../\n")
	if strings.Join(req, ",") != "v1.2.3,v0.1.0" || strings.Join(rep, ",") != "=> ../" {
		t.Errorf("parse: requires %q, replaces %q", req, rep)
	}
}

func TestNestedModulesRequireReleaseVersion(t *testing.T) {
	r := root(t)
	raw, err := os.ReadFile(filepath.Join(r, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(raw))
	if !semver.MatchString(version) {
		t.Fatalf("VERSION %q is not a semantic version vX.Y.Z", version)
	}
	mods := nestedModules(t, r)
	if len(mods) == 0 {
		t.Fatal("no nested module found; pgstore at least is one")
	}
	for _, p := range mods {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(r, p)
		req, rep := parse(string(b))
		if len(req) == 0 {
			continue // a module that does not use the core
		}
		for _, v := range req {
			if v != version {
				t.Errorf("%s requires %s %s; the release version (VERSION) is %s (run .ci/release, docs/releasing.md)", rel, core, v, version)
			}
		}
		want, _ := filepath.Rel(filepath.Dir(p), r)
		if len(rep) != 1 || (rep[0] != "=> "+want && rep[0] != "=> "+want+"/") {
			t.Errorf("%s: want one replace %s => %s for work in this repository, have %q", rel, core, want, rep)
		}
	}
}

// TestNestedModulesRequireSiblingsAtReleaseVersion checks what
// TestNestedModulesRequireReleaseVersion checks of the core for the
// nested modules a nested module requires (cmd/psd2 requires pgstore):
// the release version, and a replace to the sibling's directory.
func TestNestedModulesRequireSiblingsAtReleaseVersion(t *testing.T) {
	r := root(t)
	raw, err := os.ReadFile(filepath.Join(r, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(raw))
	mods := nestedModules(t, r)
	for _, p := range mods {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(r, p)
		for _, sib := range mods {
			if sib == p {
				continue
			}
			dir, _ := filepath.Rel(r, filepath.Dir(sib))
			req, rep := parseFor(string(b), core+"/"+filepath.ToSlash(dir))
			if len(req) == 0 {
				continue
			}
			for _, v := range req {
				if v != version {
					t.Errorf("%s requires %s/%s %s; the release version (VERSION) is %s (run .ci/release, docs/releasing.md)", rel, core, dir, v, version)
				}
			}
			want, _ := filepath.Rel(filepath.Dir(p), filepath.Dir(sib))
			want = filepath.ToSlash(want)
			if len(rep) != 1 || (rep[0] != "=> "+want && rep[0] != "=> "+want+"/") {
				t.Errorf("%s: want one replace %s/%s => %s for work in this repository, have %q", rel, core, dir, want, rep)
			}
		}
	}
}
