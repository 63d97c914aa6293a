package client

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrOtherTPP matches an [*IdentityError]: credentials of another TPP
// than the one the client was made for.
var ErrOtherTPP = errors.New("client: credentials of another TPP")

// IdentityError refuses credentials whose certificate names another TPP
// (another organisation) than the client's: [Client.SetCredentials] and
// the answers of a [CredentialsSource] may renew the TPP's certificate,
// never change who the TPP is, since the client's [Client.Scope] (the
// without-PSU budget, the payments journal) belongs to one TPP. To act as
// another TPP, make another [Client]. It matches [ErrOtherTPP]. The two
// identities are organisation identifiers (a PSD2 authorisation number)
// or certificate subjects, not personal data.
type IdentityError struct {
	// Have is the identity of the client; Got that of the refused
	// certificate.
	Have, Got string
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("client: the certificate is of TPP %q, the client is of TPP %q; make a new Client to act as another TPP", e.Got, e.Have)
}

// Is reports whether target is [ErrOtherTPP].
func (e *IdentityError) Is(target error) bool { return target == ErrOtherTPP }

// certIdentity is who the TPP of cert is: the organizationIdentifier of
// its subject (the TPP's PSD2 authorisation number), which stays the same
// across certificate renewals, else the subject's organisation and
// country, else the whole subject.
func certIdentity(cert *x509.Certificate) string {
	for _, n := range cert.Subject.Names {
		if n.Type.String() == oidOrganizationIdentifier {
			if v, ok := n.Value.(string); ok && strings.TrimSpace(v) != "" {
				return "org:" + strings.ToUpper(strings.TrimSpace(v))
			}
		}
	}
	if len(cert.Subject.Organization) > 0 {
		return "o:" + strings.Join(cert.Subject.Organization, ",") + ";c:" + strings.Join(cert.Subject.Country, ",")
	}
	return "subject:" + cert.Subject.String()
}

// pinIdentity fixes the client's TPP identity at the first certificate it
// sees and refuses a later one of another TPP.
func (c *Client) pinIdentity(cert *x509.Certificate) error {
	id := certIdentity(cert)
	if c.identity.CompareAndSwap(nil, &id) {
		return nil
	}
	if have := *c.identity.Load(); have != id {
		return &IdentityError{Have: have, Got: id}
	}
	return nil
}

// canonicalBank is the bank's identity for [Client.Scope] given its base
// URL: the spellings of one URL are one bank. Scheme and host are in
// lower case, a trailing dot of the host and the scheme's default port
// are dropped, every loopback host (localhost, 127.0.0.0/8, ::1) is
// "localhost", percent-encoded unreserved characters are decoded (and the
// others' hex digits upper-cased), empty, "." and ".." path segments are
// resolved, and a trailing slash, the query, the fragment and user info
// are dropped.
func canonicalBank(base *url.URL) string {
	scheme := strings.ToLower(base.Scheme)
	return scheme + "://" + canonicalHost(scheme, base.Host) + canonicalPath(base.EscapedPath())
}

// canonicalHost is host (with its port) in the form of canonicalBank.
func canonicalHost(scheme, hostport string) string {
	host, port := hostport, ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if isLoopback(host) {
		host = "localhost"
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return host + ":" + port
	}
	return host
}

// canonicalPath is an escaped path in the form of canonicalBank.
func canonicalPath(escaped string) string {
	var out []string
	for _, seg := range strings.Split(escaped, "/") {
		seg = normalizeEscapes(seg)
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "/" + strings.Join(out, "/")
}

// normalizeEscapes decodes the percent-encoded unreserved characters of
// seg (RFC 3986 section 6.2.2.2) and writes the hex digits of the other
// escapes in upper case.
func normalizeEscapes(seg string) string {
	if !strings.Contains(seg, "%") {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] == '%' && i+2 < len(seg) && isHex(seg[i+1]) && isHex(seg[i+2]) {
			v := unhex(seg[i+1])<<4 | unhex(seg[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteString(strings.ToUpper(seg[i : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
