package sca

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/loopback"
	"github.com/tppkit/psd2/payments"
)

// paymentAnswer is a 201 payment or basket answer with _links.
type paymentAnswer struct {
	PaymentID         string       `json:"paymentId"`
	TransactionStatus string       `json:"transactionStatus"`
	Links             client.Links `json:"_links"`
}

// taggedAnswer names its links field differently.
type taggedAnswer struct {
	L client.Links `json:"_links"`
}

type noLinks struct{ Name string }

func linksOf(t *testing.T, doc string) client.Links {
	t.Helper()
	var body struct {
		Links client.Links `json:"_links"`
	}
	require.NoError(t, json.Unmarshal([]byte(readTestdata(t, doc)), &body))
	return body.Links
}

func TestFind(t *testing.T) {
	t.Parallel()
	errLinks := linksOf(t, "error-401-sca-redirect.json")
	consentRaw := readTestdata(t, "bank-offered-consent-201.json")
	var payment paymentAnswer
	require.NoError(t, json.Unmarshal([]byte(readTestdata(t, "payment-ndct-create-201.json")), &payment))
	apiErr := &client.Error{Operation: "accounts.List", StatusCode: 401, Links: errLinks}
	var init payments.Initiation
	require.NoError(t, json.Unmarshal([]byte(readTestdata(t, "payment-ndct-create-201.json")), &init))
	var consent accounts.Consent
	require.NoError(t, json.Unmarshal([]byte(consentRaw), &consent))

	const errHref = "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=ec5ae9e2-a56e-45ca-a0fa-ad1dc481e998&context=PRIVATE"
	const consentHref = "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=176def94-aaad-4d77-b15a-4c4f3d3622ec&context=PRIVATE"
	link := func(href string) client.Links { return client.Links{client.LinkSCARedirect: {Href: href}} }

	tests := []struct {
		name string
		v    any
		want string // "" = not found
	}{
		{"401 client.Error", apiErr, errHref},
		{"wrapped 401", fmt.Errorf("listing: %w", apiErr), errHref},
		{"201 payment answer", &init, payment.Links.SCARedirect()},
		{"201 payment links", payment.Links, payment.Links.SCARedirect()},
		// Without a SCARedirect method a struct is not searched: find
		// uses no reflection on the caller's types.
		{"struct with links, no method", payment, ""},
		{"pointer to it", &payment, ""},
		{"consent answer", &consent, consentHref},
		{"consent raw JSON", []byte(consentRaw), consentHref},
		{"consent json.RawMessage", json.RawMessage(consentRaw), consentHref},
		{"consent string", consentRaw, consentHref},
		{"links", errLinks, errHref},
		{"links pointer", &errLinks, errHref},
		{"link", errLinks[client.LinkSCARedirect], errHref},
		{"tagged field, no method", taggedAnswer{L: errLinks}, ""},
		{"loopback http (emulator)", link("http://127.0.0.1:8443/tap-sandbox/9999/?state=1"), "http://127.0.0.1:8443/tap-sandbox/9999/?state=1"},
		{"nil", nil, ""},
		{"nil client.Error", (*client.Error)(nil), ""},
		{"nil consent", (*accounts.Consent)(nil), ""},
		{"nil payment pointer", (*paymentAnswer)(nil), ""},
		{"nil payment answer", (*payments.Initiation)(nil), ""},
		{"error without links", errors.New("boom"), ""},
		{"401 without link", &client.Error{StatusCode: 401}, ""},
		{"struct without links", noLinks{Name: "x"}, ""},
		{"an int", 42, ""},
		{"invalid JSON", []byte(`{"_links":`), ""},
		{"relative href", link("/tap/9999/"), ""},
		{"javascript href", link("javascript:alert(1)"), ""},
		{"http on a public host", link("http://psd2.bank.example/tap/"), ""},
		{"user info", link("https://evil@psd2.bank.example/tap/"), ""},
		{"newline in href", link("https://psd2.bank.example/tap/\n"), ""},
		{"no host", link("https:///tap/"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, ok := find(tt.v)
			if tt.want == "" {
				assert.False(t, ok)
				assert.Equal(t, "", r.String())
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, r.String())
			assert.True(t, r.URL.IsAbs())
		})
	}
}

// FuzzFind: no body panics find, and any link it returns is an absolute
// https URL (http only on loopback) without user info.
func FuzzFind(f *testing.F) {
	for _, doc := range []string{"error-401-sca-redirect.json", "bank-offered-consent-201.json", "payment-ndct-create-201.json"} {
		f.Add([]byte(readTestdata(f, doc)))
	}
	f.Add([]byte(`{"_links":{"scaRedirect":{"href":"http://127.0.0.1:1/x"}}}`))
	f.Add([]byte(`{"_links":{"scaRedirect":{"href":"https://a@b/"}}}`))
	f.Add([]byte(`{"_links":{"scaRedirect":"x"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, ok := find(body)
		if !ok {
			assert.Nil(t, r.URL)
			return
		}
		require.NotNil(t, r.URL)
		assert.True(t, r.URL.IsAbs())
		assert.NotEmpty(t, r.URL.Host)
		assert.Nil(t, r.URL.User)
		switch r.URL.Scheme {
		case "https":
		case "http":
			assert.True(t, loopback.Host(r.URL.Hostname()))
		default:
			t.Fatalf("scheme %q", r.URL.Scheme)
		}
		_, ok = find(r)
		assert.True(t, ok, "a found Redirect is accepted again")
	})
}

// TestOneLoopbackRule: a Flow's redirect URI and a scaRedirect link allow
// plain http on the hosts the client allows it on (internal/loopback, which
// the client's isLoopback asks too): "LOCALHOST" was refused by the Flow and
// accepted by the client.
func TestOneLoopbackRule(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"localhost", "LOCALHOST", "LocalHost.", "127.0.0.1", "[::1]", "localhost.example", "10.0.0.1", "tpp.example"} {
		want := loopback.Host(strings.Trim(host, "[]"))
		_, err := NewFlow("http://" + host + ":8080/cb")
		assert.Equal(t, want, err == nil, "NewFlow on %s: %v", host, err)
		_, ok := fromHref("http://"+host+"/sca?x=1", nil)
		assert.Equal(t, want, ok, "scaRedirect link on %s", host)
	}
}
