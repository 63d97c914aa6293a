// Package apipath builds the interface's request paths from ids, escaping
// each id as one path segment. It is the service packages' one way to put
// an id into a path: each id is first checked with [Check], then joined
// with [Join].
package apipath

import (
	"strings"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/pathseg"
)

// Check refuses an id that cannot be one path segment (pathseg.Problem):
// "" (the path would lose the segment), the dot segments "." and ".."
// (which [Segment] keeps, as RFC 3986 allows, and which a server or proxy
// resolves, changing the path: /v1/payments/sepa-credit-transfers/../status),
// a control character, a blank id or one with spaces around it. The error is a *client.ValidationError on field
// (the path parameter, for example "paymentId"), so a caller that returns
// it sends nothing and its error matches client.ErrValidation. The
// client applies the same rule to the parameters of an operation's path
// template (client.Operation.Params), which services use instead.
func Check(field, id string) error {
	if p := pathseg.Problem(id); p != "" {
		return &client.ValidationError{Field: field, Reason: p}
	}
	return nil
}

// Segment escapes s as one RFC 3986 path segment. Unlike
// url.PathEscape it keeps the sub-delimiters, so platform ids such as
// "enc!!abc=" stay as the bank wrote them.
func Segment(s string) string { return pathseg.Escape(s) }

// Join builds a path such as "/v1/payments/<product>/<id>/status" from
// a prefix and segments, escaping each segment with [Segment]. It does
// not check the segments: check each id with [Check] first.
func Join(prefix string, segments ...string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(prefix, "/"))
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(Segment(s))
	}
	return b.String()
}
