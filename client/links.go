package client

import (
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/tppkit/psd2/internal/redact"
)

// Link is one entry of a response's _links map (docs/interface.md section 2.1): an href and
// the HTTP verbs allowed on it now.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitzero"`
}

// Allows reports whether the link lists method among its verbs. A link
// without verbs allows nothing.
func (l Link) Allows(method string) bool {
	return slices.ContainsFunc(l.Verbs, func(v string) bool { return strings.EqualFold(v, method) })
}

// Links is the _links map of a bank answer.
//
// Its JSON form is the bank's document, hrefs in full. Its printed forms
// (String, GoString, LogValue) show each href redacted: the scaRedirect
// link's query carries the bank's SCA state and the hrefs' paths carry
// account and payment ids.
type Links map[string]Link

// Well-known link names used by the platform.
const (
	LinkSelf               = "self"
	LinkStatus             = "status"
	LinkSCARedirect        = "scaRedirect"
	LinkStartAuthorisation = "startAuthorisation"
	LinkNext               = "next"
	LinkBalances           = "balances"
	LinkTransactions       = "transactions"
)

// Get returns the named link and whether it is present with an href.
func (l Links) Get(name string) (Link, bool) {
	v, ok := l[name]
	return v, ok && v.Href != ""
}

// Href returns the named link's href, or "" when absent.
func (l Links) Href(name string) string { return l[name].Href }

// SCARedirect returns the absolute URL of the bank's authorisation page to
// send the PSU to, or "" when the answer carries none (docs/interface.md section 5.8).
func (l Links) SCARedirect() string { return l.Href(LinkSCARedirect) }

// redactHref is an href as the printed forms of [Link] and [Links] show
// it: scheme and host kept, the path as its template ([pathTemplate]: ids
// as {id}, base path prefix dropped), user info, query and fragment
// [redacted]. An href that does not parse is redacted whole.
func redactHref(href string) string {
	if href == "" {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil || u.Opaque != "" {
		return redactedValue
	}
	var b strings.Builder
	if u.Scheme != "" || u.Host != "" {
		if u.Scheme != "" {
			b.WriteString(u.Scheme + ":")
		}
		b.WriteString("//")
		if u.User != nil {
			b.WriteString(redactedValue + "@")
		}
		b.WriteString(u.Host)
	}
	b.WriteString(pathTemplate(u.EscapedPath()))
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + redactedValue)
	}
	if u.Fragment != "" || u.RawFragment != "" {
		b.WriteString("#" + redactedValue)
	}
	return b.String()
}

// String describes l with its href redacted (query and fragment
// [redacted], ids in the path as {id}), so that printing a link leaks no
// SCA state or account id. Read Href for the link itself.
func (l Link) String() string {
	return fmt.Sprintf("client.Link{Href:%s Verbs:%v}", redactHref(l.Href), l.Verbs)
}

// GoString is String, for %#v.
func (l Link) GoString() string { return l.String() }

// Format prints String under every fmt verb (%q quoted): fmt would
// otherwise print the href in full for verbs such as %d and %x, SCA state
// included, also inside any document that holds the link.
func (l Link) Format(st fmt.State, verb rune) { redact.Write(st, verb, l.String()) }

// LogValue makes log/slog print l as a group of its href, redacted as in
// String, and its verbs.
func (l Link) LogValue() slog.Value {
	return slog.GroupValue(slog.String("href", redactHref(l.Href)), slog.Any("verbs", l.Verbs))
}

// String describes l in name order, each href redacted as in
// [Link.String]. Read the links with Get, Href or SCARedirect.
func (l Links) String() string {
	names := make([]string, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("client.Links{")
	for i, k := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + ":" + l[k].String())
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String, for %#v.
func (l Links) GoString() string { return l.String() }

// Format prints String under every fmt verb, as [Link.Format] does.
func (l Links) Format(st fmt.State, verb rune) { redact.Write(st, verb, l.String()) }

// LogValue makes log/slog print l as a group with one group per link,
// redacted as in [Link.LogValue].
func (l Links) LogValue() slog.Value {
	names := make([]string, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	attrs := make([]slog.Attr, len(names))
	for i, k := range names {
		attrs[i] = slog.Attr{Key: k, Value: l[k].LogValue()}
	}
	return slog.GroupValue(attrs...)
}

// redactedLinks is l with each href redacted as in [Link.String], for the
// JSON form of types that hold links but are not the bank's document (an
// [*Error]).
func (l Links) redactedLinks() Links {
	if l == nil {
		return nil
	}
	out := make(Links, len(l))
	for k, v := range l {
		out[k] = Link{Href: redactHref(v.Href), Verbs: v.Verbs}
	}
	return out
}
