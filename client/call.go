package client

import (
	"context"
	"errors"
	"fmt"
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

// Result is what became of a call, as the client reports it to the
// call's [Hook].
type Result struct {
	// Sent is false exactly when no byte of any attempt left the machine
	// (Err then matches [ErrNotSent]): the bank saw nothing, counted
	// nothing, created nothing.
	Sent bool
	// Attempts is the number of the call's attempts a byte of which may
	// have left the machine (the client's retries, and its clock-skew
	// retry, included): the requests the bank may have received, and
	// counted. 0 when Sent is false, except after a clock-skew retry
	// that was not sent (the bank refused the first with a 400 that
	// proves it did nothing).
	Attempts int
	// StatusCode is the HTTP status of the answer the call ended with, 0
	// without one.
	StatusCode int
	// ResultID is the value of the member the [Operation] names in
	// ResultID, read from a 2xx answer ("" otherwise).
	ResultID string
	// Err is the error [Client.Do] returns (nil on success).
	Err error
}

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
