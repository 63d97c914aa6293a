package emulator

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// controlArgKeys maps the Go fields of controlArgs to their JSON keys.
func controlArgKeys() map[string]string {
	out := map[string]string{}
	t := reflect.TypeFor[controlArgs]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[t.Field(i).Name] = name
	}
	return out
}

// TestControlRoutesDeclareTheirKeys reads controlapi.go: the fields of
// controlArgs each route's run reads (itself or through a method of
// controlArgs, such as span) are the keys it declares, no more and no
// fewer; every key of controlArgs is some route's; and each route's
// example uses only its keys.
func TestControlRoutesDeclareTheirKeys(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "controlapi.go", nil, 0)
	require.NoError(t, err)
	keyOf := controlArgKeys()

	// selectors returns the fields of controlArgs read in n through the
	// variable named v, following the methods of controlArgs.
	methods := map[string]*ast.FuncDecl{}
	var routes *ast.CompositeLit
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "controlArgs" {
						methods[d.Name.Name] = d
					}
				}
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "controlRoutes" {
					routes = vs.Values[0].(*ast.CompositeLit)
				}
			}
		}
	}
	require.NotNil(t, routes, "var controlRoutes")
	var selectors func(n ast.Node, v string, out map[string]bool)
	selectors = func(n ast.Node, v string, out map[string]bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == v {
				if m := methods[sel.Sel.Name]; m != nil {
					selectors(m.Body, m.Recv.List[0].Names[0].Name, out)
				} else {
					out[sel.Sel.Name] = true
				}
			}
			return true
		})
	}

	taken := map[string]bool{}
	seen := 0
	for _, el := range routes.Elts {
		fields := map[string]ast.Expr{}
		for _, kv := range el.(*ast.CompositeLit).Elts {
			kv := kv.(*ast.KeyValueExpr)
			fields[kv.Key.(*ast.Ident).Name] = kv.Value
		}
		str := func(name string) string {
			if fields[name] == nil {
				return ""
			}
			s, err := strconv.Unquote(fields[name].(*ast.BasicLit).Value)
			require.NoError(t, err)
			return s
		}
		method := str("method")
		var rt *controlRoute
		for i := range controlRoutes {
			if controlRoutes[i].method == method {
				rt = &controlRoutes[i]
			}
		}
		require.NotNil(t, rt, method)
		seen++
		run := fields["run"].(*ast.FuncLit)
		used := map[string]bool{}
		if params := run.Type.Params.List; len(params[len(params)-1].Names) == 1 {
			if v := params[len(params)-1].Names[0].Name; v != "_" {
				selectors(run.Body, v, used)
			}
		}
		usedKeys := []string{}
		for field := range used {
			k, ok := keyOf[field]
			require.True(t, ok, "%s reads %s, no field of controlArgs", method, field)
			usedKeys = append(usedKeys, k)
		}
		declared := strings.Fields(rt.keys)
		assert.ElementsMatch(t, declared, usedKeys, "%s: the keys declared and the fields run reads", method)
		for _, k := range declared {
			taken[k] = true
		}
		if rt.args != "" {
			var example map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(rt.args), &example), method)
			for k := range example {
				assert.True(t, rt.takes(k), "%s: its example has %q, no key of it", method, k)
			}
		}
	}
	assert.Equal(t, len(controlRoutes), seen)
	for _, k := range keyOf {
		assert.True(t, taken[k], "no control takes %q", k)
	}
}

// TestControlAPIRefusesAnotherControlsKey: every control refuses every
// argument key it does not take, naming the key and the control (an
// argument of slow-bank given to inject-fault, or the tpp to authorize,
// answered 200 and did nothing with it); nothing changes.
func TestControlAPIRefusesAnotherControlsKey(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	keys := slices.Sorted(maps.Values(controlArgKeys()))
	for _, rt := range controlRoutes {
		name := ControlName(rt.method)
		for _, k := range keys {
			if rt.takes(k) {
				continue
			}
			status, body := ctl.call(http.MethodPost, name, `{"`+k+`":null}`)
			if assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", name, k, body) {
				assert.Contains(t, body["error"], strconv.Quote(k), name)
				assert.Contains(t, body["error"], name, k)
				assert.Equal(t, "BAD_ARGUMENTS", body["code"])
			}
		}
	}
	for _, tc := range []struct{ name, body, key string }{
		{"inject-fault", `{"kind":"status","p50":"1s"}`, `"p50"`},
		{"slow-bank", `{"p50":"1s","for":"1m","kind":"hang"}`, `"kind"`},
		{"authorize", `{"scaRedirect":"https://x/","customerNumber":"1","tpp":""}`, `"tpp"`},
		{"freeze", `{"on":true}`, `"on"`},
		{"advance", `{"days":1,"TIME":"2026-01-01"}`, `"TIME"`},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.key, tc.body)
		assert.Contains(t, body["error"], tc.name, tc.body)
	}
	s.mu.RLock()
	assert.Empty(t, s.faults.armed)
	s.mu.RUnlock()
	assert.Empty(t, s.out.list)

	// The listing shows each control's keys.
	req := httptest.NewRequest(http.MethodGet, "/controls", nil)
	req.Header.Set("Authorization", "Bearer tok")
	rec := httptest.NewRecorder()
	ctl.h.ServeHTTP(rec, req)
	var list struct {
		Controls []struct {
			Name string   `json:"name"`
			Args []string `json:"args"`
		} `json:"controls"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	require.Len(t, list.Controls, len(controlRoutes))
	for i, c := range list.Controls {
		assert.Equal(t, strings.Fields(controlRoutes[i].keys), slices.Clip(c.Args), c.Name)
	}
}

// TestDocsExamplesTakeTheirKeys: every curl example of docs/emulator.md
// sends only keys its control takes (it would be refused).
func TestDocsExamplesTakeTheirKeys(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "emulator.md"))
	require.NoError(t, err)
	routes := map[string]*controlRoute{}
	for i := range controlRoutes {
		routes[ControlName(controlRoutes[i].method)] = &controlRoutes[i]
	}
	examples := regexp.MustCompile(`\$CONTROL/controls/([a-z-]+) -d '([^']*)'`).FindAllSubmatch(doc, -1)
	require.NotEmpty(t, examples)
	for _, m := range examples {
		rt := routes[string(m[1])]
		if !assert.NotNil(t, rt, "no control %s", m[1]) {
			continue
		}
		var args map[string]json.RawMessage
		if assert.NoError(t, json.Unmarshal(m[2], &args), "%s", m[2]) {
			for k := range args {
				assert.True(t, rt.takes(k), "docs: %s does not take %q", m[1], k)
			}
		}
	}
}
