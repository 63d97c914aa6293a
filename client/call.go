package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tppkit/psd2/internal/redact"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Call is one call as the client resolved it, once, before its first
// attempt: the client's defaults ([WithDefaults]) and the call's
// [RequestOption]s applied in that order, the URL resolved, the body
// encoded. Every attempt sends exactly this, with its own Date and
// signature. Hooks and validators read it; they must not change it.
//
// Its printed, slog and JSON forms (String, GoString, LogValue,
// MarshalJSON) are redacted, so a hook or validator may log a Call: the
// URL as its template (ids as {id}, the query [redacted]), the headers as
// the client's logger shows them (PSU-ID, PSU-IP-Address, X-PSU-IDENTITY,
// TPP-Session-ID [redacted], TPP-Redirect-URI without its query), and of
// the body only its length.
type Call struct {
	// Operation is the SDK call, for example "payments.Create".
	Operation string
	// Method is the HTTP method.
	Method string
	// URL is the absolute URL, query included.
	URL string
	// Path is the URL's escaped path relative to the base URL's path,
	// without the query: "/v1/payments/{product}/{id}" with the values,
	// as the interface's documents write paths.
	Path string
	// Scope is the client's [Client.Scope]: this TPP at this bank.
	Scope string
	// RequestID is the X-Request-ID of every attempt.
	RequestID string
	// Body is the exact request body (nil: none).
	Body []byte
	// Header holds the headers the call carries: those of its options,
	// X-Request-ID, Accept, Content-Type, Digest, x-accept-fix. Date and
	// the signature headers are added per attempt.
	Header http.Header
	// Repeatable reports whether the pipeline may send the call again
	// after it may have reached the bank (GET, DELETE, a POST marked so).
	Repeatable bool
	// RetryStatus and RetryAfter are set on the Call given to an
	// Operation's BeforeRetry: the HTTP status of the answer to the
	// attempt being retried (0: none arrived) and the bank's Retry-After
	// the client waits before the retry (0: it waits its own backoff).
	// Package budget pauses the without-PSU calls to the bank on a 429
	// with Retry-After there, before the client's wait.
	RetryStatus int
	RetryAfter  time.Duration

	values []callValue // WithValue
}

// Value returns the value a [WithValue] option attached to the call under
// key, nil when none did.
func (c *Call) Value(key any) any {
	for _, v := range c.values {
		if v.key == key {
			return v.value
		}
	}
	return nil
}

// callView is the redacted form of a Call that its printed, slog and JSON
// forms show.
type callView struct {
	Operation  string
	Method     string
	URL        string
	Path       string
	Scope      string
	RequestID  string
	BodyLen    int
	Header     map[string]string
	Repeatable bool
}

func (c Call) view() callView {
	return callView{Operation: c.Operation, Method: c.Method, URL: redactHref(c.URL),
		Path: pathTemplate(c.Path), Scope: c.Scope, RequestID: c.RequestID, BodyLen: len(c.Body), Header: redactedHeader(c.Header),
		Repeatable: c.Repeatable}
}

// String describes c redacted: operation, method, the URL's template,
// request id, the body's length, the headers as the client's logger shows
// them. It has a value receiver, so a Call value prints redacted too.
func (c Call) String() string {
	v := c.view()
	return fmt.Sprintf("client.Call{Operation:%s Method:%s URL:%s Path:%s Scope:%s RequestID:%s BodyLen:%d Header:%v Repeatable:%t}",
		v.Operation, v.Method, v.URL, v.Path, v.Scope, v.RequestID, v.BodyLen, v.Header, v.Repeatable)
}

// GoString is String, for %#v.
func (c Call) GoString() string { return c.String() }

// Format writes String for every verb (%q quoted), so that no verb
// (%d, %x) prints the fields one by one.
func (c Call) Format(st fmt.State, verb rune) { redact.Write(st, verb, c.String()) }

// LogValue makes log/slog print c as a group of the fields String shows.
func (c Call) LogValue() slog.Value {
	v := c.view()
	return slog.GroupValue(
		slog.String("Operation", v.Operation),
		slog.String("Method", v.Method),
		slog.String("URL", v.URL),
		slog.String("Path", v.Path),
		slog.String("Scope", v.Scope),
		slog.String("RequestID", v.RequestID),
		slog.Int("BodyLen", v.BodyLen),
		headerAttr("Header", c.Header),
		slog.Bool("Repeatable", v.Repeatable),
	)
}

// MarshalJSON writes c as an object of the fields String shows, under
// their Go names. There is no JSON form that keeps the body or the
// headers' values.
func (c Call) MarshalJSON() ([]byte, error) { return json.Marshal(c.view()) }

// Result is what became of a call, as the client reports it to the
// call's [Hook].
type Result struct {
	// Sent is false exactly when no byte of any attempt left the machine
	// (Err then matches [ErrNotSent]): the bank saw nothing, counted
	// nothing, created nothing.
	Sent bool
	// StatusCode is the HTTP status of the answer the call ended with, 0
	// without one.
	StatusCode int
	// ResultID is the value of the member the [Operation] names in
	// ResultID, read from a 2xx answer ("" otherwise).
	ResultID string
	// Err is the error [Client.Do] returns (nil on success).
	Err error
}

// resultView is the form of a Result its slog and JSON forms show: the
// error as its message, which the client keeps free of secrets (URLs as
// templates), rather than as the fields of its type.
type resultView struct {
	Sent       bool
	StatusCode int
	ResultID   string
	Err        string `json:",omitempty"`
}

func (r Result) view() resultView {
	v := resultView{Sent: r.Sent, StatusCode: r.StatusCode, ResultID: r.ResultID}
	if r.Err != nil {
		v.Err = r.Err.Error()
	}
	return v
}

// LogValue makes log/slog print r as a group of its fields, the error as
// its message.
func (r Result) LogValue() slog.Value {
	v := r.view()
	attrs := []slog.Attr{slog.Bool("Sent", v.Sent), slog.Int("StatusCode", v.StatusCode), slog.String("ResultID", v.ResultID)}
	if r.Err != nil {
		attrs = append(attrs, slog.String("Err", v.Err))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes r as an object of its fields under their Go names,
// the error as its message.
func (r Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.view()) }

// Hook runs around one call: before the first attempt, with the resolved
// call, and once more with its result. A Hook that returns an error stops
// the call before anything is sent: [Client.Do] returns that error inside
// a [*NotSentError] and after is not called. Otherwise after (when not
// nil) is called exactly once, before Do returns, with what became of the
// call; that is where a service counts a call it spent (package budget)
// or records an outcome (package journal).
type Hook func(ctx context.Context, call *Call) (after func(Result), err error)

// requiredOption names the option that sets each header an operation can
// require, for the message of the ValidationError a missing one gives.
var requiredOption = map[string]string{
	"Tpp-Redirect-Uri":              "client.WithRedirectURI (once for every call with client.WithDefaults)",
	"Tpp-Session-Id":                "client.WithTPPSessionID (or sca.Session.RequestOptions)",
	"Psu-Id":                        "client.WithPSU (ID) (or sca.Session.RequestOptions)",
	"Psu-Ip-Address":                "client.WithPSU (IPAddress), the PSU's IP address while the PSU is present",
	"Psu-Context":                   "client.WithPSUContext",
	"Psu-Corporate-Id":              "client.WithPSU (CorporateID)",
	"Tpp-Brand-Logging-Information": "client.WithBrandLoggingInformation",
}

// isSandboxPath reports whether path is one of the sandbox's mock-data
// operations, the only calls that need no TPP-Redirect-URI.
func isSandboxPath(path string) bool {
	return strings.HasPrefix(path, "/v1/sandbox/") || path == "/v1/sandbox"
}

// checkRequired refuses a call that lacks a header its operation
// requires: TPP-Redirect-URI on every call but the sandbox's (the bank may
// ask for SCA on any call, docs/interface.md section 5.8) and the headers
// of op.Require. Every missing header is reported, each as a
// *ValidationError naming the option that sets it.
func checkRequired(op *Operation, urlPath string, h http.Header) error {
	var errs []error
	check := func(name string) {
		key := canonicalKey(name)
		if vs := h[key]; len(vs) > 0 && strings.TrimSpace(vs[0]) != "" {
			return
		}
		how, ok := requiredOption[key]
		if !ok {
			how = fmt.Sprintf("client.WithHeader(%q, ...)", name)
		}
		errs = append(errs, &ValidationError{Field: name, Reason: "header required by " + op.Name + "; set it with " + how})
	}
	if !isSandboxPath(urlPath) {
		check("TPP-Redirect-URI")
	}
	for _, name := range op.Require {
		check(name)
	}
	return errors.Join(errs...)
}
