// Command vulnsum reads the JSON stream of `govulncheck -format json` on
// stdin and prints the findings of one module: each vulnerability once,
// at the deepest level govulncheck found it (called: the module's code
// reaches the vulnerable function; imported: a vulnerable package is
// imported but not called; required: only a module of the build graph
// has it), then one summary line. .ci/vulncheck pipes into it:
//
//	go tool govulncheck -C pgstore -format json ./... | go run .ci/vulnsum.go pgstore
//
// It exits 1 when a vulnerability of a module other than the standard
// library is called: a dependency bump fixes it. A called vulnerability
// of the standard library is printed, with the Go release that fixes it,
// but does not fail: it is fixed by building with that release, which is
// the toolchain's business, not this repository's (docs/releasing.md).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
}

type message struct {
	Config *struct {
		GoVersion string `json:"go_version"`
		DB        string `json:"db"`
	} `json:"config"`
	Finding *struct {
		OSV          string   `json:"osv"`
		FixedVersion string   `json:"fixed_version"`
		Trace        []*frame `json:"trace"`
	} `json:"finding"`
}

// levels of a finding, deepest last.
const (
	required = iota
	imported
	called
)

var levelName = [...]string{"required", "imported", "called"}

type vuln struct {
	id, module, pkg, symbol, fixed string
	level                          int
}

func main() {
	name := "."
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	vulns := map[string]*vuln{}
	goVersion := ""
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(os.Stderr, "vulnsum: %s: reading govulncheck's output: %v\n", name, err)
				os.Exit(2)
			}
			break
		}
		if m.Config != nil && m.Config.GoVersion != "" {
			goVersion = m.Config.GoVersion
		}
		f := m.Finding
		if f == nil || len(f.Trace) == 0 {
			continue
		}
		top := f.Trace[0]
		v := &vuln{id: f.OSV, module: top.Module, pkg: top.Package, fixed: f.FixedVersion}
		switch {
		case top.Function != "":
			v.level = called
			v.symbol = top.Function
			if top.Receiver != "" {
				v.symbol = top.Receiver + "." + top.Function
			}
		case top.Package != "":
			v.level = imported
		}
		if old, ok := vulns[v.id]; !ok || v.level > old.level {
			vulns[v.id] = v
		}
	}
	ids := make([]string, 0, len(vulns))
	for id := range vulns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var count [3]int
	stdCalled, modCalled := 0, 0
	for _, id := range ids {
		v := vulns[id]
		count[v.level]++
		where := v.module
		if v.pkg != "" {
			where = v.pkg
		}
		if v.symbol != "" {
			where += "." + v.symbol
		}
		fixed := "no fix yet"
		if v.fixed != "" {
			fixed = "fixed in " + v.fixed
		}
		note := ""
		if v.level == called {
			if v.module == "stdlib" {
				stdCalled++
				note = " (standard library: build with a Go release that has the fix)"
			} else {
				modCalled++
				note = " (a dependency: bump it)"
			}
		}
		fmt.Printf("  %s %s: %s, %s%s\n", id, levelName[v.level], where, fixed, note)
	}
	fmt.Printf("govulncheck %s: %d called (%d in the standard library of %s, %d in modules), %d imported only, %d required only\n",
		name, count[called], stdCalled, strings.TrimSpace(goVersion), modCalled, count[imported], count[required])
	if modCalled > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: govulncheck %s: %d called vulnerabilities in dependencies\n", name, modCalled)
		os.Exit(1)
	}
}
