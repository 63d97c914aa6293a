package emulator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// TestOpenAPIRequiresWhatTheEmulatorRequires: every header the emulator
// refuses a request without (400 HTTP_HEADER_REQUIRED) is a required
// header parameter of the operation in the description it serves at
// /openapi.json: the signature headers of every call, and the headers of
// the operation's rule (rules.RequirementOf: TPP-Redirect-URI outside
// /v1/sandbox/, those of basket and payment creation), and TPP-Session-ID
// of the reads that check the PSU's session (psuSessionRoute). A client generated
// from a description that calls them optional leaves them out and gets a
// 400 for each.
func TestOpenAPIRequiresWhatTheEmulatorRequires(t *testing.T) {
	t.Parallel()
	s := newServer()
	type param struct {
		Ref      string `json:"$ref"`
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc))
	resolve := func(p param) param {
		if p.Ref != "" {
			return doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
		}
		return p
	}
	// operation returns the description's path and operation of the
	// emulator's route: every segment matches, a parameter of the
	// description any segment, the most literal segments winning.
	operation := func(method, path string) (string, []param) {
		segs := strings.Split(strings.Trim(path, "/"), "/")
		best, bestLit := "", -1
		for dp := range doc.Paths {
			ds := strings.Split(strings.Trim(dp, "/"), "/")
			if len(ds) != len(segs) || doc.Paths[dp][strings.ToLower(method)] == nil {
				continue
			}
			lit, ok := 0, true
			for i, d := range ds {
				switch {
				case strings.HasPrefix(d, "{"):
				case d == segs[i]:
					lit++
				default:
					ok = false
				}
			}
			if ok && lit > bestLit {
				best, bestLit = dp, lit
			}
		}
		if best == "" {
			return "", nil
		}
		var item struct {
			Parameters []param `json:"parameters"`
		}
		var op struct {
			Parameters []param `json:"parameters"`
		}
		if raw, ok := doc.Paths[best]["parameters"]; ok {
			require.NoError(t, json.Unmarshal(raw, &item.Parameters))
		}
		require.NoError(t, json.Unmarshal(doc.Paths[best][strings.ToLower(method)], &op))
		return best, append(item.Parameters, op.Parameters...)
	}
	for _, pattern := range s.apiRoutes {
		method, path, _ := strings.Cut(pattern, " ")
		dp, params := operation(method, path)
		require.NotEmpty(t, dp, "%s: not in docs/openapi.json", pattern)
		need := append([]string{"TPP-Signature-Certificate", "Signature"}, rules.RequirementOf(pattern).Headers...)
		if method == "GET" && psuSessionRoute(path) {
			need = append(need, "TPP-Session-ID") // c.session: the PSU's session
		}
		for _, h := range need {
			required := false
			for _, p := range params {
				if p = resolve(p); p.In == "header" && strings.EqualFold(p.Name, h) && p.Required {
					required = true
				}
			}
			assert.True(t, required, "%s (%s %s in docs/openapi.json): the emulator requires header %s, the description does not", pattern, method, dp, h)
		}
	}
}

// psuSessionRoute reports whether the emulator's GET route at path reads
// the PSU's session (c.session, c.aisSession), which needs
// TPP-Session-ID: GET /v1/user, the agreements, every account and card
// account read.
func psuSessionRoute(path string) bool {
	return path == "/v1/user" || path == "/v1/agreements" ||
		path == "/v1/accounts" || strings.HasPrefix(path, "/v1/accounts/") ||
		path == "/v1/card-accounts" || strings.HasPrefix(path, "/v1/card-accounts/")
}
