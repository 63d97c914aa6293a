package client

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed, slog and JSON forms of the exported types that hold a
// bank's answer or a call's request data, generated from the
// declarations below into print_gen.go: String, GoString, Format (every
// fmt verb) and LogValue from the form methods, MarshalJSON from the
// views. Headers show as the client's logger shows them
// ([redactedHeader]), hrefs and paths as templates ([redactHref]),
// bodies never. The types print their fields as fmt's %+v does, under
// their Go names, set or not. Links' JSON is the bank's document and
// stays data; the JSON of the others is redacted too.

// redactIfSet is [redacted] for a non-empty s, "" otherwise.
func redactIfSet(s string) string {
	if s == "" {
		return ""
	}
	return redactedValue
}

// fields adds each key and value pair of kv to f as fmt's %+v writes a
// string field: as it is, set or not.
func fields(f *redact.Form, kv ...string) *redact.Form {
	for i := 0; i+1 < len(kv); i += 2 {
		f.Field(kv[i], kv[i+1], slog.StringValue(kv[i+1]))
	}
	return f
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

// MarshalJSON writes c as an object of the fields String shows, under
// their Go names. There is no JSON form that keeps the body or the
// headers' values.
func (c Call) view() callView {
	return callView{Operation: c.Operation, Method: c.Method, URL: redactHref(c.URL),
		Path: pathTemplate(c.Path), Scope: c.Scope, RequestID: c.RequestID, BodyLen: len(c.Body), Header: redactedHeader(c.Header),
		Repeatable: c.Repeatable}
}

// String describes c redacted: operation, method, the URL's template,
// request id, the body's length, the headers as the client's logger shows
// them. It has a value receiver, so a Call value prints redacted too.
func (c Call) form() *redact.Form {
	v := c.view()
	return fields(redact.NewGo("client.Call"), "Operation", v.Operation, "Method", v.Method, "URL", v.URL, "Path", v.Path,
		"Scope", v.Scope, "RequestID", v.RequestID).
		Field("BodyLen", strconv.Itoa(v.BodyLen), slog.IntValue(v.BodyLen)).
		Text("Header", fmt.Sprint(v.Header)).Attr(headerAttr("Header", c.Header)).
		Field("Repeatable", strconv.FormatBool(v.Repeatable), slog.BoolValue(v.Repeatable))
}

// resultView is the form of a Result its slog and JSON forms show: the
// error as its message, which the client keeps free of secrets (URLs as
// templates), rather than as the fields of its type.
type resultView struct {
	Sent       bool
	Attempts   int
	StatusCode int
	ResultID   string
	Err        string `json:",omitempty"`
}

// MarshalJSON writes r as an object of its fields under their Go names,
// the error as its message.
func (r Result) view() resultView {
	v := resultView{Sent: r.Sent, Attempts: r.Attempts, StatusCode: r.StatusCode, ResultID: r.ResultID}
	if r.Err != nil {
		v.Err = r.Err.Error()
	}
	return v
}

// String describes r: whether a byte was sent, the status, the result id
// and the error's message (quoted), the fields of its slog and JSON
// forms.
func (r Result) form() *redact.Form {
	v := r.view()
	f := redact.NewGo("client.Result").Field("Sent", strconv.FormatBool(v.Sent), slog.BoolValue(v.Sent)).
		Field("Attempts", strconv.Itoa(v.Attempts), slog.IntValue(v.Attempts)).
		Field("StatusCode", strconv.Itoa(v.StatusCode), slog.IntValue(v.StatusCode))
	fields(f, "ResultID", v.ResultID)
	if r.Err != nil {
		f.Field("Err", strconv.Quote(v.Err), slog.StringValue(v.Err))
	}
	return f
}

// String describes l with its href redacted (query and fragment
// [redacted], ids in the path as {id}), so that printing a link leaks no
// SCA state or account id, and each verb as [redact.Word] shows it (a
// verb that is not a word of letters, "OTHER"). Read Href and Verbs for
// the link itself.
func (l Link) form() *redact.Form {
	h, verbs := redactHref(l.Href), redact.Words(l.Verbs)
	return redact.NewGo("client.Link").Text("Href", h).Text("Verbs", fmt.Sprint(verbs)).
		Attr(slog.String("href", h)).Attr(slog.Any("verbs", verbs))
}

// String describes l in name order, each href redacted as in
// [Link.String], each name as [redact.Word] shows it (a name of the
// bank's that is not a word of letters, "OTHER"), the first
// [redact.MaxItems] of them (the rest counted under "more"). Read the
// links with Get, Href or SCARedirect.
func (l Links) form() *redact.Form {
	f := redact.NewGo("client.Links")
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range l {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range names[:min(len(names), redact.MaxItems)] {
		f.Nested(redact.Word(k), l[k].form())
	}
	if rest := len(names) - redact.MaxItems; rest > 0 {
		f.Field("more", strconv.Itoa(rest), slog.IntValue(rest))
	}
	return f
}

// shownMessage is a tppMessage as it may be printed or logged: a bank
// may echo the request in any of its fields (a national identity number
// as the code, an IBAN in the path or the text), so the code is one of
// the interface's or "OTHER" (SafeCode), the category ERROR or WARNING,
// the path one that names a field (isFieldPath), and the text [redacted].
// The Error's Messages keep what the bank sent.
func shownMessage(m TPPMessage) TPPMessage {
	out := TPPMessage{Category: m.Category, Code: SafeCode(m.Code), Path: m.Path, Text: redactIfSet(m.Text)}
	if out.Category != "ERROR" && out.Category != "WARNING" {
		out.Category = redactIfSet(out.Category)
	}
	if out.Path != "" && !isFieldPath(out.Path) {
		out.Path = redactedValue
	}
	return out
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

// MarshalJSON writes e as an object of its fields under their Go names,
// redacted as in GoString: link hrefs as templates without query, the
// psuMessage [redacted], headers as the client's logger shows them, and
// the tppMessages as shownMessage shows them.
func (e *Error) view() errorView {
	var msgs []TPPMessage
	for _, m := range e.Messages {
		msgs = append(msgs, shownMessage(m))
	}
	return errorView{Operation: e.Operation, StatusCode: e.StatusCode, RequestID: e.RequestID,
		Messages: msgs, Links: e.Links.redactedLinks(), PSUMessage: redactIfSet(e.PSUMessage),
		Header: redactedHeader(e.Header)}
}

// GoString describes e for %#v with its links redacted (the scaRedirect
// href's query carries the bank's SCA state; see [Links]), the
// psuMessage (which may name the PSU) [redacted] and the response
// headers as the client's logger shows them.
func (e *Error) form() *redact.Form {
	if e == nil {
		return redact.Nil("(*client.Error)")
	}
	v := e.view()
	return redact.NewGo("&client.Error").Text("Operation", strconv.Quote(v.Operation)).Text("StatusCode", strconv.Itoa(v.StatusCode)).
		Text("RequestID", strconv.Quote(v.RequestID)).Text("Messages", fmt.Sprintf("%#v", v.Messages)).
		Text("Links", e.Links.GoString()).Text("PSUMessage", strconv.Quote(v.PSUMessage)).Text("Header", fmt.Sprintf("%#v", v.Header))
}

// responseView is the redacted form of a Response.
type responseView struct {
	Meta   metaView
	Header map[string]string
}

// MarshalJSON writes r as an object of its fields under their Go names,
// the Meta as its own JSON form, the headers redacted as in String.
func (r Response) view() responseView {
	return responseView{Meta: r.Meta.view(), Header: redactedHeader(r.Header)}
}

// String describes r: its Meta as [Meta.String] does, its headers as the
// client's logger shows them. It has a value receiver, so a Response
// value prints redacted too.
func (r Response) form() *redact.Form {
	return redact.NewGo("client.Response").Nested("Meta", r.Meta.form()).
		Text("Header", fmt.Sprint(redactedHeader(r.Header))).Attr(headerAttr("Header", r.Header))
}

// metaView is the JSON form of a Meta: its fields, the empty ones left
// out (the tags).
type metaView struct {
	Operation       string
	RequestID       string
	EchoedRequestID string `json:",omitempty"`
	StatusCode      int
	Attempts        int
	Date            time.Time     `json:",omitzero"`
	SCAApproach     string        `json:",omitempty"`
	RetryAfter      time.Duration `json:",omitempty"`
}

// MarshalJSON writes m as an object of its fields under their Go names,
// the empty ones left out.
func (m Meta) view() metaView {
	return metaView(m)
}

// String describes m as fmt's %+v would, with Date in the HTTP format.
// It has a value receiver, so a Meta value prints the same.
func (m Meta) form() *redact.Form {
	v := m.view()
	f := fields(redact.NewGo("client.Meta"), "Operation", v.Operation, "RequestID", v.RequestID, "EchoedRequestID", v.EchoedRequestID).
		Field("StatusCode", strconv.Itoa(v.StatusCode), slog.IntValue(v.StatusCode)).
		Field("Attempts", strconv.Itoa(v.Attempts), slog.IntValue(v.Attempts))
	date := ""
	if !v.Date.IsZero() {
		date = v.Date.UTC().Format(http.TimeFormat)
	}
	f.Field("Date", date, slog.TimeValue(v.Date))
	return fields(f, "SCAApproach", v.SCAApproach).
		Field("RetryAfter", v.RetryAfter.String(), slog.DurationValue(v.RetryAfter))
}

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

// MarshalJSON writes op as an object of the fields String shows, under
// their Go names.
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
func (op Operation) form() *redact.Form {
	v := op.view()
	f := fields(redact.NewGo("client.Operation"), "Name", v.Name, "Method", v.Method, "Path", v.Path, "Query", v.Query, "Body", v.Body).
		Field("Repeatable", strconv.FormatBool(v.Repeatable), slog.BoolValue(v.Repeatable))
	return fields(f, "ResultID", v.ResultID).Field("Require", fmt.Sprint(v.Require), slog.AnyValue(v.Require))
}

// String describes p with every personal value replaced by [redacted]
// (only HTTPMethod is shown), so that printing or logging a PSU by mistake
// leaks no IP address, port, device id or PSU-ID. Empty fields are left
// out. It has a value receiver, so a PSU value prints redacted too.
func (p PSU) form() *redact.Form {
	f := redact.NewGo("client.PSU")
	for _, pf := range p.redactedFields() {
		fields(f, pf.name, pf.value)
	}
	return f
}

// MarshalJSON writes p as an object of its set fields under their Go
// names, redacted as in String. A PSU is request data to pass on, not to
// store; there is no JSON form that keeps the values.
func (p PSU) view() json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range p.redactedFields() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.name)
		v, _ := json.Marshal(f.value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// psuField is one set field of a PSU as its printed forms show it.
type psuField struct{ name, value string }

// redactedFields lists the set fields of p under their Go names, each
// value [redacted] except a valid HTTPMethod (GET, POST, PUT, PATCH,
// DELETE), which says nothing about the PSU.
func (p PSU) redactedFields() []psuField {
	var out []psuField
	for _, f := range []struct{ name, value string }{
		{"ID", p.ID}, {"CorporateID", p.CorporateID}, {"IPAddress", p.IPAddress},
		{"IPPort", p.IPPort}, {"UserAgent", p.UserAgent}, {"Accept", p.Accept},
		{"AcceptCharset", p.AcceptCharset}, {"AcceptEncoding", p.AcceptEncoding},
		{"AcceptLanguage", p.AcceptLanguage}, {"GeoLocation", p.GeoLocation},
		{"HTTPMethod", p.HTTPMethod}, {"DeviceID", p.DeviceID},
	} {
		if f.value == "" {
			continue
		}
		v := redactedValue
		if f.name == "HTTPMethod" {
			switch f.value {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
				v = f.value
			}
		}
		out = append(out, psuField{f.name, v})
	}
	return out
}
