// Package scalink holds the SDK's one rule for a scaRedirect link the
// PSU's browser may be sent to: package sca's links (sca.Redirect) and
// the consent answer of package accounts both ask [Parse].
package scalink

import (
	"net/url"
	"strings"

	"github.com/tppkit/psd2/internal/loopback"
)

// MaxLen bounds a link's length (8 KiB, the sca package's bound of a
// callback URL).
const MaxLen = 8 << 10

// Parse returns href as a URL when it is a page the PSU's browser may be
// sent to: an absolute https URL with a host and no user info (plain http
// only on a loopback host, for a bank's sandbox on this machine), without
// spaces or control characters. Anything else (javascript:, data:, a
// relative link, another host over http) is not a link: false.
func Parse(href string) (*url.URL, bool) {
	if href == "" || len(href) > MaxLen || strings.ContainsAny(href, " \t\r\n\x00") {
		return nil, false
	}
	u, err := url.Parse(href)
	if err != nil || !u.IsAbs() || u.Hostname() == "" || u.User != nil || u.Opaque != "" {
		return nil, false
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback.Host(u.Hostname()) {
			return nil, false
		}
	default:
		return nil, false
	}
	return u, true
}
