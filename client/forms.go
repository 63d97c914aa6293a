package client

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/tppkit/psd2/internal/redact"
)

// The printed, slog and JSON forms of the exported types that hold a
// bank's answer or a call's request data ([Error], [Response],
// [Operation]): headers as the client's logger shows them
// ([redactedHeader]), hrefs and paths as templates ([redactHref]), bodies
// never. [Call], [Result], [Link], [Links] and [PSU] have theirs next to
// their types.

// redactIfSet is [redacted] for a non-empty s, "" otherwise.
func redactIfSet(s string) string {
	if s == "" {
		return ""
	}
	return redactedValue
}

// errorView is the redacted form of an *Error that its GoString and
// MarshalJSON show, under the Go names of its fields.
type errorView struct {
	Operation  string
	StatusCode int
	RequestID  string
	Messages   []TPPMessage
	Links      Links
	PSUMessage string
	Header     map[string]string
}

func (e *Error) view() errorView {
	return errorView{Operation: e.Operation, StatusCode: e.StatusCode, RequestID: e.RequestID,
		Messages: e.Messages, Links: e.Links.redactedLinks(), PSUMessage: redactIfSet(e.PSUMessage),
		Header: redactedHeader(e.Header)}
}

// GoString describes e for %#v with its links redacted (the scaRedirect
// href's query carries the bank's SCA state; see [Links]), the
// psuMessage (which may name the PSU) [redacted] and the response
// headers as the client's logger shows them.
func (e *Error) GoString() string {
	if e == nil {
		return "(*client.Error)(nil)"
	}
	v := e.view()
	return fmt.Sprintf("&client.Error{Operation:%q, StatusCode:%d, RequestID:%q, Messages:%#v, Links:%#v, PSUMessage:%q, Header:%#v}",
		v.Operation, v.StatusCode, v.RequestID, v.Messages, e.Links, v.PSUMessage, v.Header)
}

// Format prints e's message (Error) under every fmt verb, and GoString
// for %#v: fmt would otherwise print an error's fields (headers, the
// psuMessage, link hrefs) for verbs such as %d, which it does not print
// through Error.
func (e *Error) Format(st fmt.State, verb rune) {
	if verb == 'v' && st.Flag('#') {
		redact.Write(st, verb, e.GoString())
		return
	}
	if e == nil {
		redact.Write(st, verb, "<nil>")
		return
	}
	redact.Write(st, verb, e.Error())
}

// LogValue makes log/slog print e as its message (Error), as it prints
// any other error.
func (e *Error) LogValue() slog.Value {
	if e == nil {
		return slog.StringValue("<nil>")
	}
	return slog.StringValue(e.Error())
}

// MarshalJSON writes e as an object of its fields under their Go names,
// redacted as in GoString: link hrefs as templates without query, the
// psuMessage [redacted], headers as the client's logger shows them.
func (e *Error) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	return json.Marshal(e.view())
}

// responseView is the redacted form of a Response.
type responseView struct {
	StatusCode int
	Header     map[string]string
	RequestID  string
}

func (r Response) view() responseView {
	return responseView{StatusCode: r.StatusCode, Header: redactedHeader(r.Header), RequestID: r.RequestID}
}

// String describes r with its headers as the client's logger shows them.
// It has a value receiver, so a Response value prints redacted too.
func (r Response) String() string {
	v := r.view()
	return fmt.Sprintf("client.Response{StatusCode:%d Header:%v RequestID:%s}", v.StatusCode, v.Header, v.RequestID)
}

// GoString is String, for %#v.
func (r Response) GoString() string { return r.String() }

// Format prints String under every fmt verb (%q quoted): fmt would
// otherwise print the headers in full for verbs such as %d and %x.
func (r Response) Format(st fmt.State, verb rune) { redact.Write(st, verb, r.String()) }

// LogValue makes log/slog print r as a group of its fields, the headers
// redacted as in String.
func (r Response) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("StatusCode", r.StatusCode), headerAttr("Header", r.Header),
		slog.String("RequestID", r.RequestID))
}

// MarshalJSON writes r as an object of its fields under their Go names,
// the headers redacted as in String.
func (r Response) MarshalJSON() ([]byte, error) { return json.Marshal(r.view()) }

// operationView is the redacted form of an Operation: the path as its
// template, the query's and the body's presence only, the hooks left out.
type operationView struct {
	Name       string
	Method     string
	Path       string
	Query      string `json:",omitempty"`
	Body       string `json:",omitempty"`
	Repeatable bool
	ResultID   string   `json:",omitempty"`
	Require    []string `json:",omitempty"`
}

func (op Operation) view() operationView {
	v := operationView{Name: op.Name, Method: op.Method, Path: redactHref(op.Path),
		Repeatable: op.Repeatable, ResultID: op.ResultID, Require: op.Require}
	if len(op.Query) > 0 {
		v.Query = redactedValue
	}
	if op.Body != nil {
		v.Body = redactedValue
	}
	return v
}

// String describes op redacted: name, method, the path as its template
// (ids as {id}), the query and the body (account numbers, names) only as
// [redacted] when set. It has a value receiver, so an Operation value
// prints redacted too.
func (op Operation) String() string {
	v := op.view()
	return fmt.Sprintf("client.Operation{Name:%s Method:%s Path:%s Query:%s Body:%s Repeatable:%t ResultID:%s Require:%v}",
		v.Name, v.Method, v.Path, v.Query, v.Body, v.Repeatable, v.ResultID, v.Require)
}

// GoString is String, for %#v.
func (op Operation) GoString() string { return op.String() }

// Format prints String under every fmt verb (%q quoted): fmt would
// otherwise print the path's ids, the query and the body (account
// numbers, names) for verbs such as %d and %x.
func (op Operation) Format(st fmt.State, verb rune) { redact.Write(st, verb, op.String()) }

// LogValue makes log/slog print op as a group of the fields String shows.
func (op Operation) LogValue() slog.Value {
	v := op.view()
	return slog.GroupValue(slog.String("Name", v.Name), slog.String("Method", v.Method),
		slog.String("Path", v.Path), slog.String("Query", v.Query), slog.String("Body", v.Body),
		slog.Bool("Repeatable", v.Repeatable), slog.String("ResultID", v.ResultID),
		slog.Any("Require", v.Require))
}

// MarshalJSON writes op as an object of the fields String shows, under
// their Go names.
func (op Operation) MarshalJSON() ([]byte, error) { return json.Marshal(op.view()) }
