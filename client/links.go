package client

import (
	"net/url"
	"slices"
	"strings"

	"github.com/tppkit/psd2/internal/pathseg"
	"github.com/tppkit/psd2/internal/redact"
	"github.com/tppkit/psd2/internal/scalink"
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
// An href the PSU's browser must not be sent to is none: only an absolute
// https URL with a host and without user info counts (plain http only on
// a loopback host, a bank's sandbox on this machine), never javascript:,
// data: or a relative link, the rule package sca's links follow too. The
// href as the bank sent it stays in the map.
func (l Links) SCARedirect() string {
	href := l.Href(LinkSCARedirect)
	if _, ok := scalink.Parse(href); !ok {
		return ""
	}
	return href
}

// redactHref is an href as the printed forms of [Link] and [Links] show
// it: [redact.URI] with the path as its template ([pathTemplate]: ids as
// {id}, base path prefix dropped), user info, query and fragment
// [redacted]. An href that does not parse is redacted whole.
func redactHref(href string) string { return redact.URI(href, pathTemplate) }

// redactedLinks is l with each href, name and verb redacted as in
// [Link.String] and [Links.String], for the JSON form of types that hold links but are not the bank's document (an
// [*Error]).
func (l Links) redactedLinks() Links {
	if l == nil {
		return nil
	}
	out := make(Links, len(l))
	for k, v := range l {
		out[redact.Word(k)] = Link{Href: redactHref(v.Href), Verbs: redact.Words(v.Verbs)}
	}
	return out
}

// IDUnder returns the id the links give of a resource created under
// path (a collection such as "/v1/signing-baskets"): the path segment
// right after path in the hrefs of its links (self, status,
// startAuthorisation, ...), whatever the base URL before it. It returns
// "" when no link is under path, when two links name different ids, or
// when the segment cannot name a resource (empty, a dot
// segment, a control character; or padded with spaces): never a guess.
func (l Links) IDUnder(path string) string {
	prefix := strings.TrimSuffix(path, "/") + "/"
	id := ""
	for _, link := range l {
		u, err := url.Parse(link.Href)
		if err != nil {
			continue
		}
		p := u.EscapedPath()
		i := strings.Index(p, prefix)
		if i < 0 {
			continue
		}
		seg, _, _ := strings.Cut(p[i+len(prefix):], "/")
		seg, err = url.PathUnescape(seg)
		if err != nil || pathseg.Problem(seg) != "" || strings.TrimSpace(seg) != seg {
			return ""
		}
		if id != "" && id != seg {
			return ""
		}
		id = seg
	}
	return id
}
