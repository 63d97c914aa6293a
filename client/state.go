package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/store"
)

// WithStore keeps the client's state in st: the without-PSU call budget
// (package budget) of every accounts.Service made on the client, and
// whatever else a service keeps per client. Give every replica of a TPP's service a
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
// hex SHA-256 of the TPP's identity and of the bank's. Services prefix
// their keys with it, so that TPPs and banks sharing one store never share
// a budget or a session. It holds no personal data.
//
// The TPP's identity is the organizationIdentifier of the signing
// certificate's subject (its PSD2 authorisation number), which stays the
// same across certificate renewals; else the subject's organisation and
// country; else the whole subject. It is fixed by the first credentials
// the client sees (those given to [New], or the first answer of a
// [CredentialsSource]); credentials of another TPP are refused
// ([ErrOtherTPP]), so the scope never changes under a running service.
// Until a source has answered, Scope asks it, waiting at most 10 s.
//
// The bank's identity is the name given with [WithBank], else the base
// URL in a canonical form, so that the spellings of one URL are one bank:
// scheme and host in lower case, no default port (":443"), no trailing
// dot in the host, every loopback host ("localhost", "127.0.0.1", "[::1]")
// the same, percent-encoded unreserved characters ("%61pi") decoded,
// empty, "." and ".." path segments ("//") resolved, no trailing slash.
//
// ASSUMPTION (the interface names no bank identifier): one base URL is one
// bank; banks behind one base URL share a scope, which can only make a
// budget stricter. A TPP that reaches one bank through two URLs (a proxy)
// names it with [WithBank] on both clients.
func (c *Client) Scope() string {
	if s := c.scope.Load(); s != nil {
		return *s
	}
	h := sha256.New()
	for _, part := range []string{c.tppIdentity(), c.bankIdentity()} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	s := hex.EncodeToString(h.Sum(nil)[:16])
	if c.identity.Load() != nil {
		c.scope.Store(&s) // both parts are fixed now
	}
	return s
}

// Bank returns the bank's identity in the client's [Client.Scope]: the
// name given with [WithBank], else the canonical form of the base URL
// (see Scope).
func (c *Client) Bank() string { return c.bankIdentity() }

// bankIdentity is the bank's part of the scope.
func (c *Client) bankIdentity() string {
	if c.cfg.bank != "" {
		return "bank:" + c.cfg.bank
	}
	return c.bankURL
}

// WithBank names the bank the client calls, for its [Client.Scope]: every
// client given the same name (and credentials of the same TPP) counts one
// without-PSU budget and keeps one payments journal, whatever its base
// URL. Without it the bank is the base URL in a canonical form. name is
// 1 to 200 printable ASCII characters, for example "dnb" or the bank's
// BIC; it is compared exactly.
func WithBank(name string) Option {
	return func(c *config) error {
		if name == "" || len(name) > 200 {
			return errors.New("client: WithBank needs a name of 1 to 200 characters")
		}
		for i := 0; i < len(name); i++ {
			if name[i] < 0x20 || name[i] > 0x7e {
				return errors.New("client: WithBank needs printable ASCII")
			}
		}
		c.bank = name
		return nil
	}
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier
// (2.5.4.97) that holds the TPP's PSD2 authorisation number in an eIDAS
// certificate.
const oidOrganizationIdentifier = "2.5.4.97"

// identityWait bounds the question to the credentials source that fixes
// the TPP's identity (tppIdentity): Scope asks it outside any call's
// context, on the way of every call until the identity is fixed. A source
// that does not answer within it (a secret store that hangs) leaves the
// identity unfixed, as a source's error does, instead of holding every
// call for ever; each call then asks the source again on its own context.
const identityWait = 10 * time.Second

// tppIdentity is the TPP's part of the scope: the identity fixed by the
// first credentials the client saw. A client whose credentials come only
// from a source asks it once, the first time it needs the identity.
func (c *Client) tppIdentity() string {
	if id := c.identity.Load(); id != nil {
		return *id
	}
	if src := c.cfg.credSource; src != nil {
		ctx, cancel := context.WithTimeout(context.Background(), c.identityWait)
		creds, err := src(ctx)
		cancel()
		if err == nil && creds != nil && creds.Certificate != nil {
			_ = c.pinIdentity(creds.Certificate)
			if id := c.identity.Load(); id != nil {
				return *id
			}
		}
	}
	return ""
}

// Part returns the value kept on c under key, made with mk the first time
// any caller asks: state that a service package keeps once per client,
// whatever the number of services made on it. Package budget keeps the
// client's without-PSU budget there, so that every accounts.Service of c
// counts against one budget with one limit. When first calls race, mk may
// run more than once, and every caller gets the one value kept. key must
// be comparable; use an unexported type of the package that keeps the
// value, as with context.WithValue. A nil mk only looks: it returns nil
// when nothing is kept under key.
func (c *Client) Part(key any, mk func() any) any {
	if v, ok := c.parts.Load(key); ok || mk == nil {
		return v
	}
	v, _ := c.parts.LoadOrStore(key, mk())
	return v
}
