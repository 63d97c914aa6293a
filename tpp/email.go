package tpp

import (
	"net/mail"
	"strings"

	"github.com/tppkit/psd2/client"
)

// Limits of an e-mail address (RFC 5321 section 4.5.3.1).
const (
	maxEmail     = 254 // the whole address (a 256-octet path less "<>")
	maxLocalPart = 64
	maxLabel     = 63 // one label of the domain
)

// ValidateEmail reports whether email is an address the SDK sends as the
// TPP's contact: a plain local-part@domain address (no display name, no
// angle brackets, no comments) of at most 254 characters, local part at
// most 64, in printable ASCII without spaces, whose domain is a host name
// of at least two labels (letters, digits, hyphens; no address literal).
//
// The interface leaves the rules open. These are the safe choice: an
// address every mail system accepts, and no character a downstream system
// of the bank could refuse (docs/interface.md section 1.6). This is the
// one place that decides them. A failure is a [*client.ValidationError]
// for the field "email".
func ValidateEmail(email string) error {
	bad := func(reason string) error { return &client.ValidationError{Field: "email", Reason: reason} }
	switch {
	case email == "":
		return bad("empty address")
	case len(email) > maxEmail:
		return bad("longer than 254 characters")
	}
	for i := range len(email) {
		if c := email[i]; c <= ' ' || c >= 0x7f {
			return bad("only printable ASCII characters without spaces are accepted")
		}
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email {
		return bad("not a plain address of the form local-part@domain")
	}
	at := strings.LastIndexByte(email, '@')
	local, domain := email[:at], email[at+1:]
	if len(local) > maxLocalPart {
		return bad("local part longer than 64 characters")
	}
	if !hostName(domain) {
		return bad("the domain is not a host name with at least two labels")
	}
	return nil
}

// hostName reports whether d is a host name of at least two labels, each
// 1 to 63 letters, digits or hyphens, not starting or ending with a
// hyphen, the last not all digits.
func hostName(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabel || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := range len(l) {
			c := l[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}
