package client

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const accountID = "enc!!Qk1eS2pMd2R4ZVY3N0hjX3Z5b2pCTjE0YjJmZ2Q-_ZZ="

func TestResolve(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://psd2.bank.example/api/")
	tests := []struct {
		ref   string
		query url.Values
		want  string
		err   error
	}{
		{ref: "/v1/accounts", want: "https://psd2.bank.example/api/v1/accounts"},
		{ref: "v1/accounts", want: "https://psd2.bank.example/api/v1/accounts"},
		{ref: "/api/v1/accounts", want: "https://psd2.bank.example/api/v1/accounts"},
		{ref: "/v1/accounts/" + accountID + "/transactions", query: url.Values{"bookingStatus": {"both"}},
			want: "https://psd2.bank.example/api/v1/accounts/" + accountID + "/transactions?bookingStatus=both"},
		{ref: "/v1/accounts/" + accountID + "/transactions?bookingStatus=both&offset=50", want: "https://psd2.bank.example/api/v1/accounts/" + accountID + "/transactions?bookingStatus=both&offset=50"},
		{ref: "https://psd2.bank.example/api/v1/payments/x/status", want: "https://psd2.bank.example/api/v1/payments/x/status"},
		{ref: "HTTPS://PSD2.BANK.EXAMPLE/api/v1/x", want: "https://PSD2.BANK.EXAMPLE/api/v1/x"},
		{ref: "https://evil.example/api/v1/accounts", err: ErrForeignHost},
		{ref: "http://psd2.bank.example/api/v1/accounts", err: ErrForeignHost},
		{ref: "https://psd2.bank.example:8443/api/v1/accounts", err: ErrForeignHost},
		{ref: "//evil.example/v1/accounts", err: ErrForeignHost},
		{ref: "https://psd2.bank.example@evil.example/v1", err: ErrForeignHost},
	}
	for _, tt := range tests {
		u, err := c.resolve(tt.ref, tt.query)
		if tt.err != nil {
			require.ErrorIs(t, err, tt.err, tt.ref)
			continue
		}
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, u.String(), tt.ref)
	}
	for _, bad := range []string{"", "/v1/a b", "/v1/x#frag", "/v1/\n"} {
		_, err := c.resolve(bad, nil)
		assert.Error(t, err, bad)
	}
}

// resolve builds a relative reference's URL from its escaped path
// without parsing the whole URL again: the URL is the one url.Parse
// gives for the same string, escapes, encoded slashes and non-ASCII
// included, under base paths with and without escapes of their own.
func TestResolveAsParse(t *testing.T) {
	t.Parallel()
	refs := []string{"/v1/accounts", "/v1/payments/sepa/a%2Fb/status", "/v1/accounts/" + accountID + "/balances",
		"/v1/x/%C3%B8re%20id", "/v1/x/øre", "/v1/x/a;b=c/@:,$", "/v1/x/%25", "/v1/x?q=%2F&r=a+b", "v1/rel", "/v1/x/%7Eok",
		"/v1/../x/./y", "v1", "/api/v1/accounts", "/v1/a_b-c.d~e/", "/", "/v1/x:y", "/v1/x?"}
	for _, base := range []string{"https://psd2.bank.example/api", "https://psd2.bank.example", "https://psd2.bank.example/b%C3%A6se/api"} {
		c := newTestClient(t, base)
		for _, ref := range refs {
			u, err := c.resolve(ref, nil)
			require.NoError(t, err, ref)
			r, err := url.Parse(ref)
			require.NoError(t, err)
			p := r.EscapedPath()
			if !strings.HasPrefix(p, "/") {
				p = "/" + p
			}
			if !strings.HasPrefix(p, c.basePath+"/") {
				p = c.basePath + p
			}
			want, err := url.Parse(c.base.Scheme + "://" + c.base.Host + p)
			require.NoError(t, err)
			want.RawQuery = r.RawQuery
			assert.Equal(t, want.String(), u.String(), "%s under %s", ref, base)
			assert.Equal(t, want.EscapedPath(), u.EscapedPath(), ref)
			assert.Equal(t, want.Path, u.Path, ref)
			assert.Equal(t, want.RequestURI(), u.RequestURI(), ref)
		}
	}
}

func TestIDsReachTheServerUnchanged(t *testing.T) {
	t.Parallel()
	var got string
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		got = r.URL.EscapedPath() + "?" + r.URL.RawQuery
		w.Write([]byte(`{}`))
	})
	c := newTestClient(t, b.URL+"/api")
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/" + accountID + "/balances", Query: url.Values{"withBalance": {"true"}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/accounts/"+accountID+"/balances?withBalance=true", got)
}

func TestLinks(t *testing.T) {
	t.Parallel()
	l := Links{LinkSelf: {Href: "/v1/x", Verbs: []string{"GET", "delete"}}, "empty": {}}
	got, ok := l.Get(LinkSelf)
	assert.True(t, ok)
	assert.Equal(t, Link{Href: "/v1/x", Verbs: []string{"GET", "delete"}}, got)
	assert.True(t, got.Allows("DELETE"))
	assert.False(t, got.Allows("POST"))
	_, ok = l.Get("empty")
	assert.False(t, ok)
	assert.Equal(t, "", l.Href(LinkNext))
	assert.Equal(t, "", l.SCARedirect())
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"/v1/accounts", "https://psd2.bank.example/api/v1/x", "//evil.example/x", "/v1/accounts/" + accountID + "?a=b", "https://psd2.bank.example@evil.example/", "https://psd2.bank.example:443/x", "\\\\evil.example", "/%2e%2e/x", "javascript:alert(1)"} {
		f.Add(s)
	}
	c := newTestClient(f, "https://psd2.bank.example/api")
	f.Fuzz(func(t *testing.T, ref string) {
		u, err := c.resolve(ref, url.Values{"q": {ref}})
		if err != nil {
			return
		}
		if !strings.EqualFold(u.Host, "psd2.bank.example") || !strings.EqualFold(u.Scheme, "https") || u.User != nil {
			t.Fatalf("%q resolved to %q", ref, u)
		}
		// The URL the request is sent to parses to the same host.
		v, err := url.Parse(u.String())
		if err != nil || !strings.EqualFold(v.Host, "psd2.bank.example") {
			t.Fatalf("%q re-parses to %v (%v)", ref, v, err)
		}
	})
}
