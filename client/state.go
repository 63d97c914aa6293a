package client

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tppkit/psd2/store"
)

// WithStore keeps the client's state in st: the without-PSU call budget
// of every accounts.Service made on the client (and whatever else a
// service keeps per client). Give every replica of a TPP's service a
// client on the same shared store (a file store on a shared disk, the
// PostgreSQL store) so that they count one budget. By default the state
// is in memory, per client.
func WithStore(st store.Store) Option {
	return func(c *config) error {
		if st == nil {
			return errors.New("client: WithStore(nil)")
		}
		c.store = st
		return nil
	}
}

// Store returns the store the client keeps its state in ([WithStore]; a
// store.MemoryStore of its own by default).
func (c *Client) Store() store.Store { return c.cfg.store }

// Scope identifies this TPP at this bank in keys of a shared store: a
// hex SHA-256 of the TPP's identity (the organizationIdentifier of the
// signing certificate's subject, which stays the same across certificate
// renewals, else the whole subject) and of the bank (the base URL with
// scheme and host in lower case, without a trailing slash). Services
// prefix their keys with it, so that TPPs and banks sharing one store
// never share a budget or a session. It holds no personal data.
//
// ASSUMPTION (the interface names no bank identifier): one base URL is one
// bank; banks behind one base URL share a scope, which can only make a
// budget stricter.
func (c *Client) Scope() string {
	h := sha256.New()
	for _, part := range []string{c.tppIdentity(), bankIdentity(c.base)} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier
// (2.5.4.97) that holds the TPP's PSD2 authorisation number in an eIDAS
// certificate.
const oidOrganizationIdentifier = "2.5.4.97"

// tppIdentity is the organizationIdentifier of the current signing
// certificate's subject, else the whole subject.
func (c *Client) tppIdentity() string {
	creds := c.Credentials()
	if creds == nil || creds.Certificate == nil {
		return ""
	}
	for _, n := range creds.Certificate.Subject.Names {
		if n.Type.String() == oidOrganizationIdentifier {
			if v, ok := n.Value.(string); ok && v != "" {
				return v
			}
		}
	}
	return creds.Certificate.Subject.String()
}

// bankIdentity is the base URL in a canonical form.
func bankIdentity(base *url.URL) string {
	u := *base
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.User, u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", "", false
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u.String()
}
