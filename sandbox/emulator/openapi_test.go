package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServesOpenAPI: GET /openapi.json beside the /api base path answers
// the interface's OpenAPI 3.1 description, without credentials; other
// methods are 405.
func TestServesOpenAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	root := strings.TrimSuffix(s.URL, apiPrefix)
	resp, err := s.Client().Get(root + OpenAPIPath)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	assert.Contains(t, doc.Paths, "/v1/bank-offered-consents")
	assert.Contains(t, doc.Paths["/v1/{payment-service}/{payment-product}"], "post")

	resp, err = s.Client().Post(root+OpenAPIPath, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// TestOpenAPIDescribesEveryRoute: the operations the emulator serves
// (every pattern its API mux was given through handle, enumerated as the
// server registered them, not copied by hand) and the paths and methods
// of the description it serves at /openapi.json (docs/openapi.json) are
// the same set, so that neither can gain an operation the other lacks.
// A path parameter of the description whose schema is an enum
// (payment-service, payment-product) stands for each of its values: the
// emulator registers one route per payment service, and takes every
// product at a {product} parameter; any other parameter matches a
// parameter of the emulator, whatever its name.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	s := newServer()
	require.NotEmpty(t, s.apiRoutes)

	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]struct {
				Name   string `json:"name"`
				In     string `json:"in"`
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc))
	enums := map[string][]string{}
	for _, p := range doc.Components.Parameters {
		if p.In == "path" && len(p.Schema.Enum) > 0 {
			enums[p.Name] = p.Schema.Enum
		}
	}
	// A segment is a literal, a parameter (param), or a value of an enum
	// parameter (enum: a parameter of the emulator matches it too).
	type segment struct {
		text        string
		param, enum bool
	}
	type route struct {
		method string
		segs   []segment
	}
	split := func(path string) []segment {
		var out []segment
		for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
			name, ok := strings.CutPrefix(seg, "{")
			out = append(out, segment{text: strings.TrimSuffix(name, "}"), param: ok && strings.HasSuffix(seg, "}")})
		}
		return out
	}
	// expand lists segs with each enum parameter replaced by its values.
	var expand func(segs []segment) [][]segment
	expand = func(segs []segment) [][]segment {
		for i, seg := range segs {
			if values := enums[seg.text]; seg.param && len(values) > 0 {
				var out [][]segment
				for _, v := range values {
					c := slices.Clone(segs)
					c[i] = segment{text: v, enum: true}
					out = append(out, expand(c)...)
				}
				return out
			}
		}
		return [][]segment{segs}
	}
	matches := func(d, e route) bool {
		if d.method != e.method || len(d.segs) != len(e.segs) {
			return false
		}
		for i, ds := range d.segs {
			es := e.segs[i]
			switch {
			case ds.param && es.param, ds.enum && es.param:
			case !ds.param && !es.param && ds.text == es.text:
			default:
				return false
			}
		}
		return true
	}
	name := func(r route) string {
		var b strings.Builder
		b.WriteString(r.method + " ")
		for _, seg := range r.segs {
			if seg.param {
				b.WriteString("/{" + seg.text + "}")
			} else {
				b.WriteString("/" + seg.text)
			}
		}
		return b.String()
	}
	var described, served []route
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue // parameters, summary, ...
			}
			for _, segs := range expand(split(path)) {
				described = append(described, route{method: strings.ToUpper(method), segs: segs})
			}
		}
	}
	for _, pattern := range s.apiRoutes {
		method, path, ok := strings.Cut(pattern, " ")
		require.True(t, ok, "route %q has no method: it answers every method, which no description says", pattern)
		served = append(served, route{method: method, segs: split(path)})
	}
	var undescribed, unserved []string
	for _, e := range served {
		if !slices.ContainsFunc(described, func(d route) bool { return matches(d, e) }) {
			undescribed = append(undescribed, name(e))
		}
	}
	for _, d := range described {
		if !slices.ContainsFunc(served, func(e route) bool { return matches(d, e) }) {
			unserved = append(unserved, name(d))
		}
	}
	sort.Strings(undescribed)
	sort.Strings(unserved)
	assert.Empty(t, undescribed, "served by the emulator, missing from docs/openapi.json (add them in conformance/openapi_test.go and regenerate)")
	assert.Empty(t, unserved, "in docs/openapi.json, not served by the emulator")
	assert.Len(t, served, len(s.apiRoutes))
}
