package payments_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
)

// scaRedirectHrefs are scaRedirect hrefs a bank's answer may carry, with
// what SCARedirect hands out to send the PSU's browser to: an absolute
// https URL on the bank's authorisation site (docs/interface.md sections
// 5.1, 5.8 and 10: "scaRedirect is absolute, on the bank's authorisation
// site"; TLS on every connection), plain http only on a loopback host (a
// sandbox on this machine), and nothing else.
var scaRedirectHrefs = []struct {
	name, href, want string
}{
	{"https", "https://psd2.bank.example/tap/authorize?state=s", "https://psd2.bank.example/tap/authorize?state=s"},
	{"http on loopback", "http://127.0.0.1:8080/tap-sandbox/1", "http://127.0.0.1:8080/tap-sandbox/1"},
	{"http on localhost", "http://localhost:8080/tap-sandbox/1", "http://localhost:8080/tap-sandbox/1"},
	{"http on a public host", "http://psd2.bank.example/tap/1", ""},
	{"relative", "/tap/1", ""},
	{"javascript", "javascript:alert(1)", ""},
	{"data", "data:text/html,<script>alert(1)</script>", ""},
	{"user info", "https://psd2.bank.example@evil.example/tap/1", ""},
	{"no host", "https:///tap/1", ""},
	{"newline", "https://psd2.bank.example/tap/1\n", ""},
	{"scheme-relative", "//evil.example/tap/1", ""},
}

// The SCARedirect of a payment's answers (creation, start of
// authorisation, cancellation) is the page the PSU is sent to. Before the
// fix it was the href as the bank sent it, whatever it was: a plain http
// page on a public host, a relative href, a javascript: URL. The
// answer's _links keep the bank's document as it came.
func TestPaymentAnswersSCARedirectIsAnHTTPSPage(t *testing.T) {
	t.Parallel()
	for _, tc := range scaRedirectHrefs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			href, err := json.Marshal(tc.href)
			require.NoError(t, err)
			doc := []byte(`{"paymentId":"p1","transactionStatus":"RCVD","scaStatus":"started","_links":{"scaRedirect":{"href":` + string(href) + `,"verbs":["GET"]}}}`)
			var i payments.Initiation
			require.NoError(t, json.Unmarshal(doc, &i))
			assert.Equal(t, tc.want, i.SCARedirect(), "Initiation")
			assert.Equal(t, tc.href, i.Links.Href("scaRedirect"), "the document as it came")
			var a payments.Authorisation
			require.NoError(t, json.Unmarshal(doc, &a))
			assert.Equal(t, tc.want, a.SCARedirect(), "Authorisation")
			var c payments.Cancellation
			require.NoError(t, json.Unmarshal(doc, &c))
			assert.Equal(t, tc.want, c.SCARedirect(), "Cancellation")
		})
	}
}
