package emulator

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// describedOp is what the description the emulator serves at
// /openapi.json (docs/openapi.json) says of one operation's request: the
// header parameters it requires, by name as written there, and whether
// the operation requires a body.
type describedOp struct {
	path         string   // the description's path template
	required     []string // the required header parameters
	bodyRequired bool
	params       []openAPIParam // every parameter, resolved
}

// openAPIParam is a parameter of the description, resolved.
type openAPIParam struct {
	Ref      string `json:"$ref"`
	Name     string `json:"name"`
	In       string `json:"in"`
	Required bool   `json:"required"`
	Schema   struct {
		Type    string `json:"type"`
		Pattern string `json:"pattern"`
	} `json:"schema"`
}

// describedOperation returns what the description says of the request of
// the emulator's route pattern ("METHOD /v1/..."), found as
// TestOpenAPIDescribesEveryRoute matches them: every segment matches, a
// parameter of the description any segment, the most literal segments
// winning. ok is false when no operation matches.
func describedOperation(t *testing.T, pattern string) (op describedOp, ok bool) {
	t.Helper()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters    map[string]openAPIParam `json:"parameters"`
			RequestBodies map[string]struct {
				Required bool `json:"required"`
			} `json:"requestBodies"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openAPIDoc, &doc))
	method, path, _ := strings.Cut(pattern, " ")
	method = strings.ToLower(method)
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLit := "", -1
	for dp := range doc.Paths {
		ds := strings.Split(strings.Trim(dp, "/"), "/")
		if len(ds) != len(segs) || doc.Paths[dp][method] == nil {
			continue
		}
		lit, match := 0, true
		for i, d := range ds {
			switch {
			case strings.HasPrefix(d, "{"):
			case d == segs[i]:
				lit++
			default:
				match = false
			}
		}
		if match && lit > bestLit {
			best, bestLit = dp, lit
		}
	}
	if best == "" {
		return describedOp{}, false
	}
	var itemParams []openAPIParam
	if raw, ok := doc.Paths[best]["parameters"]; ok {
		require.NoError(t, json.Unmarshal(raw, &itemParams))
	}
	var o struct {
		Parameters  []openAPIParam `json:"parameters"`
		RequestBody *struct {
			Ref      string `json:"$ref"`
			Required bool   `json:"required"`
		} `json:"requestBody"`
	}
	require.NoError(t, json.Unmarshal(doc.Paths[best][method], &o))
	op = describedOp{path: best}
	for _, p := range append(itemParams, o.Parameters...) {
		if p.Ref != "" {
			p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
		}
		op.params = append(op.params, p)
		if p.In == "header" && p.Required {
			op.required = append(op.required, p.Name)
		}
	}
	if rb := o.RequestBody; rb != nil {
		op.bodyRequired = rb.Required
		if rb.Ref != "" {
			op.bodyRequired = doc.Components.RequestBodies[strings.TrimPrefix(rb.Ref, "#/components/requestBodies/")].Required
		}
	}
	return op, true
}

// emulatorRequires lists the headers the emulator refuses a request of
// the route pattern without (400 HTTP_HEADER_REQUIRED): those of every
// request (rules.SignedRequestHeaders, checked by verify), those of the
// operation (rules.RequirementOf), and Digest when the operation takes a
// body (withBody) and its rule needs a Digest with one.
func emulatorRequires(pattern string, withBody bool) []string {
	need := slices.Clone(rules.SignedRequestHeaders)
	q := rules.RequirementOf(pattern)
	need = append(need, q.Headers...)
	if withBody && q.Body.DigestRequired() && !containsFold(need, "Digest") {
		need = append(need, "Digest")
	}
	return need
}

// containsFold reports whether list holds name in any case.
func containsFold(list []string, name string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, name) })
}

// TestOpenAPIRequiresWhatTheEmulatorRequires: the headers the description
// the emulator serves at /openapi.json (docs/openapi.json) marks required
// on an operation are exactly those the emulator refuses a request of the
// operation without (400 HTTP_HEADER_REQUIRED): the headers of every
// request (X-Request-ID, TPP-Signature-Certificate, Signature, Date:
// rules.SignedRequestHeaders), those of the operation's rule
// (rules.RequirementOf: TPP-Redirect-URI outside /v1/sandbox/,
// TPP-Session-ID where an SCA starts or may, those of basket and payment
// creation), and Digest where the operation requires a body that needs
// one. A client generated from a description that calls one of them
// optional leaves it out and gets a 400; one that calls a header required
// that the bank does not need makes every caller find a value for it
// (PSU-IP-Address on a consent, which the interface wants only while the
// PSU is present). The Date parameter says its form, an IMF-fixdate in
// GMT, which the emulator reads. TestOpenAPIRequiredHeadersAsServed
// holds these lists to the emulator's answers.
func TestOpenAPIRequiresWhatTheEmulatorRequires(t *testing.T) {
	t.Parallel()
	s := newServer()
	require.NotEmpty(t, s.apiRoutes)
	for _, pattern := range s.apiRoutes {
		op, ok := describedOperation(t, pattern)
		require.True(t, ok, "%s: not in docs/openapi.json", pattern)
		need := emulatorRequires(pattern, op.bodyRequired)
		for _, h := range need {
			assert.True(t, containsFold(op.required, h),
				"%s (%s in docs/openapi.json): the emulator requires header %s, the description does not", pattern, op.path, h)
		}
		for _, h := range op.required {
			assert.True(t, containsFold(need, h),
				"%s (%s in docs/openapi.json): the description requires header %s, the emulator does not", pattern, op.path, h)
		}
		// The Date parameter's form: what the emulator writes and reads.
		i := slices.IndexFunc(op.params, func(p openAPIParam) bool { return p.In == "header" && strings.EqualFold(p.Name, "Date") })
		if !assert.GreaterOrEqual(t, i, 0, "%s: no Date header parameter in docs/openapi.json", pattern) {
			continue
		}
		date := op.params[i].Schema
		assert.Equal(t, "string", date.Type, "%s: Date", pattern)
		re, err := regexp.Compile(date.Pattern)
		if assert.NoError(t, err, "%s: Date pattern", pattern) && assert.NotEmpty(t, date.Pattern, "%s: Date has no pattern", pattern) {
			now := time.Now().UTC().Format(http.TimeFormat)
			_, read := rules.ParseHTTPDate(now)
			assert.True(t, read)
			assert.Regexp(t, re, now, "%s: an IMF-fixdate in GMT", pattern)
			for _, other := range []string{time.Now().UTC().Format(time.RFC3339), time.Now().Format(time.RFC1123Z),
				strings.Replace(now, "GMT", "CET", 1), time.Now().UTC().Format(time.ANSIC)} {
				assert.NotRegexp(t, re, other, "%s: Date takes IMF-fixdate only", pattern)
			}
		}
	}
}

// TestOpenAPIRequiredHeadersAsServed asks the emulator itself, route by
// route, what TestOpenAPIRequiresWhatTheEmulatorRequires reads from its
// rules: a request that carries exactly the header parameters
// docs/openapi.json marks required (and a body where it requires one) is
// not refused for a missing header, and the same request without any
// one of them is refused with 400 HTTP_HEADER_REQUIRED naming it. So a
// header the emulator checks in a place the rules do not show, or a
// description that requires one the emulator takes without, fails here.
// (Where a route needs an existing resource, a check made after the
// resource is found cannot be reached with the made-up id the request
// carries; the rules are checked before any handler runs.)
func TestOpenAPIRequiredHeadersAsServed(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Probe TPP")
	// values are those of the required headers that build does not set.
	values := map[string]string{
		"tpp-redirect-uri": "https://tpp.example/cb",
		"tpp-session-id":   uuid.NewString(),
		"psu-id":           uuid.NewString(),
		"psu-ip-address":   "192.0.2.10",
		"x-accept-fix":     "amount-as-string",
	}
	setByBuild := []string{"X-Request-ID", "Date", "TPP-Signature-Certificate", "Signature", "Digest"}
	for _, pattern := range s.apiRoutes {
		op, ok := describedOperation(t, pattern)
		require.True(t, ok, "%s: not in docs/openapi.json", pattern)
		method, path, _ := strings.Cut(pattern, " ")
		path = regexp.MustCompile(`\{[^}]+\}`).ReplaceAllStringFunc(path, func(p string) string {
			if p == "{product}" {
				return rules.ProductNDCT
			}
			return "probe"
		})
		var body []byte
		if op.bodyRequired {
			body = []byte(`{}`)
		}
		// request builds the request with the required headers but drop,
		// and none of those build sets that the description does not
		// require.
		request := func(drop string) *http.Request {
			var gone []string
			for _, h := range append(slices.Clone(setByBuild), "TPP-Redirect-URI") {
				if !containsFold(op.required, h) {
					gone = append(gone, h)
				}
			}
			if drop != "" {
				gone = append(gone, drop)
			}
			opts := []reqOpt{{pre: func(r *http.Request) {
				for _, h := range op.required {
					if v, ok := values[strings.ToLower(h)]; ok {
						r.Header.Set(h, v)
					} else if !containsFold(setByBuild, h) {
						t.Fatalf("%s: docs/openapi.json requires %s, which this test has no value for", pattern, h)
					}
				}
				for _, h := range gone {
					if !strings.EqualFold(h, "Signature") {
						r.Header.Del(h)
					}
				}
			}}}
			if containsFold(gone, "Signature") { // build signs a request without one
				opts = append(opts, after(func(r *http.Request) { r.Header.Del("Signature") }))
			}
			return c.build(method, path, body, opts...)
		}
		r := c.send(request(""))
		if r.status == http.StatusBadRequest {
			code, at := r.problem(t)
			assert.NotEqual(t, rules.CodeHeaderRequired, code,
				"%s (%s in docs/openapi.json): with the headers the description requires, the emulator wants %s: %s", pattern, op.path, at, r.body)
		}
		for _, h := range op.required {
			r := c.send(request(h))
			if !assert.Equal(t, http.StatusBadRequest, r.status,
				"%s (%s in docs/openapi.json): the description requires %s, the emulator answers %d without it: %s", pattern, op.path, h, r.status, r.body) {
				continue
			}
			code, at := r.problem(t)
			assert.Equal(t, rules.CodeHeaderRequired, code, "%s without %s: %s", pattern, h, r.body)
			assert.True(t, strings.EqualFold(h, at), "%s without %s: the refusal names %q: %s", pattern, h, at, r.body)
		}
	}
}
