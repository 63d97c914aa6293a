package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// specPath is the Berlin Group NextGenPSD2 1.3.9 OpenAPI file, stored
// unmodified (testdata/README.md says where it comes from).
const specPath = "testdata/psd2-api 1.3.9 2021-05-04v1.yaml"

// bgSpec is the loaded Berlin Group file with what the validator needs.
type bgSpec struct {
	doc  *openapi3.T
	opts *openapi3filter.Options
	// platform is set for the platform's own description
	// (docs/openapi.json), which defines the platform's paths: they are
	// then resolved as any other, not through platformOnly.
	platform bool
}

// loadPlatformSpec loads the platform's description, docs/openapi.json,
// once per test binary, its objects closed as the Berlin Group file's
// are, so that a member it does not define is a finding too.
var loadPlatformSpec = sync.OnceValues(func() (*bgSpec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(platformDocPath)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", platformDocPath, err)
	}
	closeObjects(doc)
	return &bgSpec{doc: doc, opts: filterOptions(), platform: true}, nil
})

// loadSpec loads the Berlin Group file once per test binary. The document
// itself is not put through openapi3.T.Validate, which refuses it for two
// slips of the file that touch nothing checked here: POST
// /v1/funds-confirmations lists the header Consent-ID twice, and the
// example of Error409_NG_AIS is an array where the schema is an object.
var loadSpec = sync.OnceValues(func() (*bgSpec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specPath)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", specPath, err)
	}
	closeObjects(doc)
	return &bgSpec{doc: doc, opts: filterOptions()}, nil
})

// closeObjects makes every object schema of doc that lists its properties
// refuse other members (additionalProperties false), unless it says
// otherwise or is part of an allOf. The Berlin Group schemas leave objects
// open, so without this a misspelt or foreign member (street for
// streetName, verbs on a link) would pass unnoticed; with it, each such
// member is a finding that the deviations must name.
func closeObjects(doc *openapi3.T) {
	inAllOf := map[*openapi3.Schema]bool{}
	seen := map[*openapi3.Schema]bool{}
	var schemas []*openapi3.Schema
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		schemas = append(schemas, s)
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		walk(s.Not)
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, x := range list {
				walk(x)
			}
		}
		for _, x := range s.AllOf {
			if x.Value != nil {
				inAllOf[x.Value] = true
			}
		}
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			walk(mt.Schema)
		}
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				content(op.RequestBody.Value.Content)
			}
			for _, r := range op.Responses.Map() {
				if r.Value != nil {
					content(r.Value.Content)
				}
			}
		}
	}
	no := false
	for _, s := range schemas {
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil && !inAllOf[s] {
			s.AdditionalProperties.Has = &no
		}
	}
}

// filterOptions are the options of every ValidateRequest and
// ValidateResponse: all errors at once, undocumented status codes are
// errors, authentication is accepted as it is (the file's security schemes
// and the Signature headers are not what is checked here; the signing
// package and the emulator check those), and the string formats the file
// uses are checked: uuid, ipv4 and uri besides kin-openapi's date,
// date-time and byte.
func filterOptions() *openapi3filter.Options {
	uri := openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil {
			return errors.New("not a URI")
		}
		if !u.IsAbs() {
			return errors.New("not an absolute URI")
		}
		return nil
	})
	return &openapi3filter.Options{
		MultiError:            true,
		IncludeResponseStatus: true,
		AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
			openapi3.WithStringFormatValidator("ipv4", openapi3.NewIPValidator(true)),
			openapi3.WithStringFormatValidator("uri", uri),
		},
	}
}

// platformOnly are the platform's operations that the Berlin Group file
// does not define (docs/interface.md section 10 "Paths"). A call to one
// of them is reported as a "request route" finding and named "METHOD
// template" in findings; bg, when set, is the Berlin Group operation its
// request and answer are checked against.
var platformOnly = []struct {
	method, template string
	bg               string // "METHOD template" of the Berlin Group operation, or ""
}{
	{http.MethodPost, "/v1/bank-offered-consents", "POST /v1/consents"},
	{http.MethodGet, "/v1/agreements", ""},
	{http.MethodGet, "/v1/user", ""},
	{http.MethodGet, "/v1/tpps/{tppId}/contact-information", ""},
	{http.MethodPut, "/v1/tpps/{tppId}/contact-information", ""},
	{http.MethodPost, "/v1/sandbox/initialize", ""},
	{http.MethodGet, "/v1/sandbox/customers", ""},
	{http.MethodPost, "/v1/sandbox/customers", ""},
	{http.MethodGet, "/v1/sandbox/customers/{customerId}", ""},
	{http.MethodDelete, "/v1/sandbox/customers/{customerId}", ""},
	{http.MethodPost, "/v1/sandbox/accounts", ""},
	{http.MethodPost, "/v1/sandbox/card-accounts", ""},
	{http.MethodPost, "/v1/sandbox/accounts/{accountId}/transactions", ""},
	{http.MethodPost, "/v1/sandbox/card-accounts/{cardAccountId}/transactions", ""},
	{http.MethodPost, "/v1/sandbox/agreements", ""},
	{http.MethodGet, "/v1/sandbox/agreements/{agreementId}", ""},
	{http.MethodDelete, "/v1/sandbox/agreements/{agreementId}", ""},
	{http.MethodGet, "/v1/sandbox/agreements/{agreementId}/engagements", ""},
	{http.MethodPost, "/v1/sandbox/agreements/{agreementId}/engagements", ""},
}

// operation is one call resolved against the Berlin Group file.
type operation struct {
	// name is the Berlin Group operationId, or "METHOD template" of a
	// platform-only operation.
	name string
	// route is the Berlin Group operation the call is checked against;
	// nil when there is none.
	route *routers.Route
	// params are the path parameters, unescaped.
	params map[string]string
	// findings are problems of the route itself (a platform-only path).
	findings []finding
}

// resolve finds the operation of method and path (without the base URL's
// /api prefix).
func (s *bgSpec) resolve(method, path string) (*operation, error) {
	for _, p := range platformOnly {
		if s.platform {
			break
		}
		if p.method != method {
			continue
		}
		if _, ok := matchTemplate(p.template, path); !ok {
			continue
		}
		op := &operation{name: method + " " + p.template}
		if p.bg == "" {
			op.findings = append(op.findings, finding{op: op.name, loc: "request route", msg: "operation not defined by Berlin Group 1.3.9"})
			return op, nil
		}
		bgMethod, bgPath, _ := strings.Cut(p.bg, " ")
		route, params, err := s.find(bgMethod, bgPath)
		if err != nil {
			return nil, err
		}
		op.route, op.params = route, params
		op.findings = append(op.findings, finding{op: op.name, loc: "request route",
			msg: "path not defined by Berlin Group 1.3.9; checked as " + route.Operation.OperationID})
		return op, nil
	}
	route, params, err := s.find(method, path)
	if err != nil {
		return nil, err
	}
	return &operation{name: route.Operation.OperationID, route: route, params: params}, nil
}

// find returns the Berlin Group operation of method and path: among the
// path templates that match, the one with the most literal segments.
func (s *bgSpec) find(method, path string) (*routers.Route, map[string]string, error) {
	var (
		best       string
		bestParams map[string]string
		bestScore  = -1
	)
	for _, tmpl := range s.doc.Paths.InMatchingOrder() {
		item := s.doc.Paths.Value(tmpl)
		if item.GetOperation(method) == nil {
			continue
		}
		params, ok := matchTemplate(tmpl, path)
		if !ok {
			continue
		}
		if score := strings.Count(tmpl, "/") - len(params); score > bestScore {
			best, bestParams, bestScore = tmpl, params, score
		}
	}
	if best == "" {
		return nil, nil, fmt.Errorf("no Berlin Group operation for %s %s", method, path)
	}
	item := s.doc.Paths.Value(best)
	return &routers.Route{Spec: s.doc, Path: best, PathItem: item, Method: method, Operation: item.GetOperation(method)}, bestParams, nil
}

// matchTemplate matches an escaped path against a path template and
// returns the unescaped values of its {parameters}.
func matchTemplate(tmpl, path string) (map[string]string, bool) {
	ts := strings.Split(strings.Trim(tmpl, "/"), "/")
	ps := strings.Split(strings.Trim(path, "/"), "/")
	if len(ts) != len(ps) {
		return nil, false
	}
	params := map[string]string{}
	for i, t := range ts {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			v, err := url.PathUnescape(ps[i])
			if err != nil || v == "" {
				return nil, false
			}
			params[t[1:len(t)-1]] = v
			continue
		}
		if t != ps[i] {
			return nil, false
		}
	}
	return params, true
}

// oneOfByService names, for the operations whose JSON body is a oneOf over
// the payment services, the alternative that belongs to each service. The
// Berlin Group file says the body "depends on the payment-service"; using
// that alternative alone makes errors point at the member at fault
// instead of at the whole oneOf.
var oneOfByService = map[string]map[string]string{
	"initiatePayment": {
		"payments":          "paymentInitiation_json",
		"periodic-payments": "periodicPaymentInitiation_json",
		"bulk-payments":     "bulkPaymentInitiation_json",
	},
	"getPaymentInformation": {
		"payments":          "paymentInitiationWithStatusResponse",
		"periodic-payments": "periodicPaymentInitiationWithStatusResponse",
		"bulk-payments":     "bulkPaymentInitiationWithStatusResponse",
	},
}

// narrow returns the route with the JSON request body (initiatePayment)
// or the JSON 200 answer (getPaymentInformation) reduced to the
// alternative of the path's payment-service.
func (s *bgSpec) narrow(route *routers.Route, params map[string]string) *routers.Route {
	byService, ok := oneOfByService[route.Operation.OperationID]
	if !ok {
		return route
	}
	name, ok := byService[params["payment-service"]]
	if !ok {
		return route
	}
	schema := s.doc.Components.Schemas[name]
	op := *route.Operation
	if op.RequestBody != nil {
		rb := *op.RequestBody.Value
		rb.Content = openapi3.Content{"application/json": &openapi3.MediaType{Schema: schema}}
		op.RequestBody = &openapi3.RequestBodyRef{Value: &rb}
	}
	if ok200 := op.Responses.Status(http.StatusOK); ok200 != nil && route.Method == http.MethodGet {
		responses := openapi3.NewResponses()
		for code, r := range op.Responses.Map() {
			responses.Set(code, r)
		}
		resp := *ok200.Value
		resp.Content = openapi3.Content{"application/json": &openapi3.MediaType{Schema: schema}}
		responses.Set("200", &openapi3.ResponseRef{Value: &resp})
		op.Responses = responses
	}
	out := *route
	out.Operation = &op
	return &out
}

// finding is one difference between a call and the Berlin Group file.
type finding struct {
	// op is the operation (see operation.name).
	op string
	// loc says where: "request header X-Request-ID", "request path
	// payment-product", "request query limit", "request body /a/b",
	// "response body /a/b", "response header X-Request-ID", "response
	// status", "request route".
	loc string
	// value is the offending value of a path or query parameter, or a
	// body scalar; "" otherwise. Header values are never kept.
	value string
	// msg is the validator's reason.
	msg string
}

func (f finding) String() string {
	s := f.op + ": " + f.loc + ": " + f.msg
	if f.value != "" {
		s += fmt.Sprintf(" (value %q)", f.value)
	}
	return s
}

// exchange is one recorded call: the request as sent and the answer.
type exchange struct {
	method     string
	path       string // escaped, without the base URL's path prefix
	rawQuery   string
	reqHeader  http.Header
	reqBody    []byte
	status     int
	respHeader http.Header
	respBody   []byte
}

// standardHeaders are the request headers of HTTP itself, which the Berlin
// Group file leaves out on purpose ("We omit the definition of all standard
// HTTP header elements").
var standardHeaders = []string{"Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language",
	"Authorization", "Connection", "Content-Length", "Content-Type", "Date", "Host", "User-Agent"}

// check validates one exchange: the request with
// openapi3filter.ValidateRequest plus two checks the filter does not make
// (headers and query parameters the operation does not define), and the
// answer with openapi3filter.ValidateResponse.
func (s *bgSpec) check(ctx context.Context, x exchange) ([]finding, error) {
	op, err := s.resolve(x.method, x.path)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(op.findings)
	if op.route == nil {
		return out, nil
	}
	route := s.narrow(op.route, op.params)
	in, err := s.requestInput(x, route, op.params)
	if err != nil {
		return nil, err
	}
	out = append(out, undeclared(op.name, route, x)...)
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		out = append(out, flatten(op.name, "request", err, in)...)
	}
	rin := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.status, Header: x.respHeader, Options: s.opts}
	rin.SetBodyBytes(x.respBody)
	if err := openapi3filter.ValidateResponse(ctx, rin); err != nil {
		out = append(out, flatten(op.name, "response", err, in)...)
	}
	return out, nil
}

// checkAnswer validates an answer document alone: status and body as the
// answer to method and path (with the payment-service and product of
// path), with a Content-Type and an X-Request-ID header.
func (s *bgSpec) checkAnswer(ctx context.Context, method, path string, status int, body []byte) ([]finding, error) {
	op, err := s.resolve(method, path)
	if err != nil {
		return nil, err
	}
	if op.route == nil {
		return op.findings, nil // no Berlin Group operation to check against
	}
	// The route findings of an aliased operation are about its request
	// and so left out here.
	var out []finding
	route := s.narrow(op.route, op.params)
	in, err := s.requestInput(exchange{method: method, path: path, reqHeader: http.Header{}}, route, op.params)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	rin := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: h, Options: s.opts}
	rin.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, rin); err != nil {
		out = append(out, flatten(op.name, "response", err, in)...)
	}
	return out, nil
}

func (s *bgSpec) requestInput(x exchange, route *routers.Route, params map[string]string) (*openapi3filter.RequestValidationInput, error) {
	u := "https://bank.example" + x.path
	if x.rawQuery != "" {
		u += "?" + x.rawQuery
	}
	req, err := http.NewRequest(x.method, u, bytes.NewReader(x.reqBody))
	if err != nil {
		return nil, err
	}
	req.Header = x.reqHeader.Clone()
	if len(x.reqBody) == 0 {
		req.Body = http.NoBody
	}
	return &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: s.opts}, nil
}

// undeclared reports the request's headers and query parameters that the
// operation does not define; standard HTTP headers are left out.
func undeclared(opName string, route *routers.Route, x exchange) []finding {
	declared := map[string]bool{}
	for _, params := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range params {
			name := p.Value.Name
			if p.Value.In == openapi3.ParameterInHeader {
				name = http.CanonicalHeaderKey(name)
			}
			declared[p.Value.In+" "+name] = true
		}
	}
	var out []finding
	for name := range x.reqHeader {
		name = http.CanonicalHeaderKey(name)
		if slices.Contains(standardHeaders, name) || declared["header "+name] {
			continue
		}
		out = append(out, finding{op: opName, loc: "request header " + strings.ToLower(name), msg: "header not defined for this operation"})
	}
	q, _ := url.ParseQuery(x.rawQuery)
	for name := range q {
		if !declared["query "+name] {
			out = append(out, finding{op: opName, loc: "request query " + name, value: q.Get(name), msg: "query parameter not defined for this operation"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].loc < out[j].loc })
	return out
}

var (
	headerReason  = regexp.MustCompile(`^response header "([^"]+)"`)
	memberMissing = regexp.MustCompile(`^property "([^"]+)" is missing$`)
	memberExtra   = regexp.MustCompile(`^property "([^"]+)" is unsupported$`)
)

// flatten turns the filter's error into findings, one per schema error,
// each placed by parameter or by JSON pointer.
func flatten(opName, dir string, err error, in *openapi3filter.RequestValidationInput) []finding {
	var out []finding
	var walk func(err error)
	walk = func(err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3filter.RequestError:
			if e.Parameter == nil {
				out = append(out, bodyFindings(opName, "request body", e.Err, e.Error())...)
				return
			}
			p := e.Parameter
			name := p.Name
			if p.In == openapi3.ParameterInHeader {
				name = strings.ToLower(name)
			}
			f := finding{op: opName, loc: "request " + p.In + " " + name, msg: e.Error()}
			switch p.In {
			case openapi3.ParameterInPath:
				f.value = in.PathParams[p.Name]
			case openapi3.ParameterInQuery:
				f.value = in.Request.URL.Query().Get(p.Name)
			}
			if errors.Is(e.Err, openapi3filter.ErrInvalidRequired) {
				f.msg = "required parameter missing"
			} else if se := schemaErrors(e.Err); len(se) > 0 {
				f.msg = se[0].Reason
			}
			out = append(out, f)
		case *openapi3filter.ResponseError:
			switch m := headerReason.FindStringSubmatch(e.Reason); {
			case m != nil:
				out = append(out, finding{op: opName, loc: "response header " + strings.ToLower(m[1]), msg: e.Error()})
			case e.Reason == "status is not supported":
				out = append(out, finding{op: opName, loc: "response status", value: fmt.Sprint(e.Input.Status), msg: "status not defined for this operation"})
			default:
				out = append(out, bodyFindings(opName, "response body", e.Err, e.Error())...)
			}
		default:
			out = append(out, finding{op: opName, loc: dir, msg: err.Error()})
		}
	}
	walk(err)
	return out
}

// bodyFindings places each schema error of err at its JSON pointer; an
// error without schema errors (a body that is missing or not JSON) is
// one finding at the body's root.
func bodyFindings(opName, where string, err error, msg string) []finding {
	se := schemaErrors(err)
	if len(se) == 0 {
		return []finding{{op: opName, loc: where, msg: msg}}
	}
	out := make([]finding, 0, len(se))
	for _, e := range se {
		ptr := e.JSONPointer()
		reason := e.Reason
		if memberMissing.MatchString(reason) {
			reason = "required member missing"
		}
		if m := memberExtra.FindStringSubmatch(reason); m != nil {
			ptr = append(ptr, m[1])
			reason = "member not defined by Berlin Group 1.3.9"
		}
		f := finding{op: opName, loc: where + " " + pointer(ptr), msg: reason}
		switch v := e.Value.(type) {
		case string:
			f.value = v
		case bool, float64:
			f.value = fmt.Sprint(v)
		}
		out = append(out, f)
	}
	return out
}

// schemaErrors collects the schema errors inside err.
func schemaErrors(err error) []*openapi3.SchemaError {
	if err == nil {
		return nil
	}
	if multi, ok := err.(openapi3.MultiError); ok {
		var out []*openapi3.SchemaError
		for _, e := range multi {
			out = append(out, schemaErrors(e)...)
		}
		return out
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return []*openapi3.SchemaError{se}
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*openapi3.SchemaError
		for _, e := range u.Unwrap() {
			out = append(out, schemaErrors(e)...)
		}
		return out
	}
	return nil
}

// pointer writes a JSON pointer (RFC 6901).
func pointer(segments []string) string {
	if len(segments) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}
