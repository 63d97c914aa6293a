package banks

import (
	"fmt"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/signing"
)

// NewClient returns a client for b in env, signing with creds. Its
// [client.Client.Scope] is b's id and env with the TPP's identity
// (client.WithBank with [Bank.ScopeName]), not its base URL: the
// without-PSU budget and the create journal kept in a shared store stay
// one per bank and environment when the bank's host moves, and never mix
// two banks. An option client.WithBank in opts replaces the name.
func (b Bank) NewClient(env Environment, creds *signing.Credentials, opts ...client.Option) (*client.Client, error) {
	base := b.BaseURL(env)
	if base == "" {
		return nil, fmt.Errorf("banks: bank %s: environment %q is not %q or %q", b.ID, env, Production, Sandbox)
	}
	c, err := client.New(base, creds, append([]client.Option{client.WithBank(b.ScopeName(env))}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("banks: bank %s: %w", b.ID, err)
	}
	return c, nil
}

// ScopeName is the name [Bank.NewClient] gives b in env with
// client.WithBank: "banks/" + id + "/" + env, such as
// "banks/sor/production". A client made another way (client.New with
// b's base URL) shares b's budget and journal when given
// client.WithBank(b.ScopeName(env)).
func (b Bank) ScopeName(env Environment) string {
	return "banks/" + b.ID + "/" + string(env)
}

// Clients returns one client per id, all signing with the same creds and
// options (give them one store with client.WithStore: each bank keeps its
// own budget and journal in it, by scope). An unknown id is an error
// matching [ErrUnknownBank] and no client is returned.
func (d *Directory) Clients(env Environment, creds *signing.Credentials, ids []string, opts ...client.Option) (map[string]*client.Client, error) {
	out := make(map[string]*client.Client, len(ids))
	for _, id := range ids {
		b, ok := d.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownBank, id)
		}
		c, err := b.NewClient(env, creds, opts...)
		if err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, nil
}
