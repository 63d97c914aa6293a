package client_test

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// TestPSUEveryVerb: no fmt verb (%d and %x included, which fmt applies to
// each field of a struct without a Format) and neither slog handler shows
// a PSU's personal data, whether printed as a value or a pointer.
func TestPSUEveryVerb(t *testing.T) {
	t.Parallel()
	p := client.PSU{ID: "7a1c2f0e-5b3d-4e8f-9a6b-1c2d3e4f5a6b", CorporateID: "0f1e2d3c-4b5a-6978-8a9b-acbdcedf0102",
		IPAddress: "203.0.113.77", IPPort: "54321", UserAgent: "MARK-agent", GeoLocation: "GEO:59.91;10.75",
		DeviceID: "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6", AcceptLanguage: "MARK-lang"}
	secrets := redacttest.WithHex(p.ID, p.CorporateID, p.IPAddress, p.IPPort, p.UserAgent, p.GeoLocation, p.DeviceID, p.AcceptLanguage)
	forms := redacttest.AssertHidden(t, p, secrets)
	redacttest.AssertHidden(t, &p, secrets)
	if forms["%d"] != forms["%v"] {
		t.Errorf("%%d prints %q, %%v %q", forms["%d"], forms["%v"])
	}
}

// TestLinksEveryVerb: a link's href (an SCA state, an account id in its
// path) shows under no fmt verb, also inside a document that holds the
// links and prints field by field.
func TestLinksEveryVerb(t *testing.T) {
	t.Parallel()
	const state = "PLANTEDstate0123456789"
	links := client.Links{client.LinkSCARedirect: {Href: "https://bank.example/sca/acc-MARK-77?state=" + state}}
	secrets := redacttest.WithHex(state, "acc-MARK-77")
	redacttest.AssertHidden(t, links, secrets)
	redacttest.AssertHidden(t, links[client.LinkSCARedirect], secrets)
	type answer struct {
		PaymentID string
		Links     client.Links
	}
	for _, verb := range redacttest.Verbs {
		if s := fmt.Sprintf(verb, answer{"p-1", links}); strings.Contains(s, state) || strings.Contains(s, hex.EncodeToString([]byte(state))) {
			t.Errorf("%s of a document holding the links shows the state: %s", verb, s)
		}
	}
}

// TestClientFormsEveryVerb: an Operation (its path's ids, its query, its
// body), a Response (its headers) and an *Error (its psuMessage, headers
// and links) show nothing personal under any fmt verb; %v of an *Error is
// its message, as for any error.
func TestClientFormsEveryVerb(t *testing.T) {
	t.Parallel()
	op := client.Operation{Name: "payments.Create", Method: "POST", Path: "/v1/payments/norwegian-domestic-credit-transfers/pay-MARK-1/status",
		Query: url.Values{"q": {"MARK-query"}}, Body: map[string]string{"creditorName": "MARK-creditor"}}
	redacttest.AssertHidden(t, op, redacttest.WithHex("pay-MARK-1", "MARK-query", "MARK-creditor"))
	resp := client.Response{Meta: client.Meta{StatusCode: 200, RequestID: "r-1"}, Header: http.Header{"Psu-Id": {"MARK-psu"}, "Set-Cookie": {"MARK-cookie"}}}
	redacttest.AssertHidden(t, resp, redacttest.WithHex("MARK-psu", "MARK-cookie"))
	e := &client.Error{Operation: "accounts.List", StatusCode: 401, PSUMessage: "Hei MARK-name",
		Header: http.Header{"Psu-Id": {"MARK-psu"}},
		Links:  client.Links{client.LinkSCARedirect: {Href: "https://bank.example/sca?state=MARK-state"}}}
	forms := redacttest.AssertHidden(t, e, redacttest.WithHex("MARK-name", "MARK-psu", "MARK-state"))
	if forms["%v"] != e.Error() || forms["%d"] != e.Error() {
		t.Errorf("%%v %q and %%d %q, want the message %q", forms["%v"], forms["%d"], e.Error())
	}
	if got := fmt.Sprintf("%#v", e); got != e.GoString() {
		t.Errorf("%%#v = %q, want GoString", got)
	}
	if got := fmt.Errorf("wrapped: %w", e).Error(); got != "wrapped: "+e.Error() {
		t.Errorf("%%w gives %q", got)
	}
}
