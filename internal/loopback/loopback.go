// Package loopback holds the SDK's one rule for a loopback host, where
// plain http is allowed (a bank's sandbox on this machine, a TPP's
// redirect URI in a test): the client's base URL and redirect URIs, and
// package sca's Flow and scaRedirect links, all ask [Host].
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a URL's Hostname: no port, no brackets) is a
// loopback host: "localhost" in any case, with or without the trailing
// dot of a fully qualified name, or a loopback IP address (127.0.0.0/8,
// ::1).
func Host(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
