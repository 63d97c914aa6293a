package client_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// TestFormsEveryVerb: each type of the package that holds request data or
// a bank's answer prints one text under every fmt verb (%q quoted, %#v
// too; an *Error its message, and %#v its redacted fields), and none
// shows the secrets it holds in any verb, slog handler or JSON form (but
// Links, whose JSON is the bank's document). A Result, which printed its
// fields before, prints its form.
func TestFormsEveryVerb(t *testing.T) {
	t.Parallel()
	hdr := http.Header{"Psu-Id": {"MARK-psu"}, "Content-Type": {"application/json"}, "Tpp-Redirect-Uri": {"https://tpp.example/cb?state=MARK-state"}}
	secrets := redacttest.WithHex("MARK-psu", "MARK-state", "MARK-acc", "MARK-body", "MARK-name")
	links := client.Links{client.LinkSCARedirect: {Href: "https://bank.example/sca/MARK-acc?state=MARK-state", Verbs: []string{"GET"}}}

	call := client.Call{Operation: "payments.Create", Method: "POST", URL: "https://bank.example/v1/payments/sepa-credit-transfers?q=MARK-acc",
		Path: "/v1/payments/sepa-credit-transfers/MARK-acc", Scope: "s", RequestID: "r-1", Body: []byte(`{"MARK-body":1}`), Header: hdr}
	const callText = "client.Call{Operation:payments.Create Method:POST URL:https://bank.example/v1/payments/sepa-credit-transfers?[redacted] " +
		"Path:/v1/payments/sepa-credit-transfers/{id} Scope:s RequestID:r-1 BodyLen:15 " +
		"Header:map[Content-Type:application/json Psu-Id:[redacted] Tpp-Redirect-Uri:https://tpp.example/cb?[redacted]] Repeatable:false}"
	redacttest.AssertVerbs(t, call, callText, callText)
	redacttest.AssertRedacted(t, call, secrets)

	e := &client.Error{Operation: "accounts.List", StatusCode: 401, Messages: []client.TPPMessage{{Code: "CONSENT_INVALID"}},
		Links: links, PSUMessage: "Hei MARK-name", Header: hdr}
	redacttest.AssertVerbs(t, e, e.Error(), e.GoString())
	forms := redacttest.AssertRedacted(t, e, secrets)
	assert.Contains(t, forms["slog text"], `v="accounts.List: 401 Unauthorized: CONSENT_INVALID"`)
	redacttest.AssertVerbs(t, (*client.Error)(nil), "<nil>", "(*client.Error)(nil)")

	res := client.Result{Sent: true, StatusCode: 401, Err: e}
	const resText = `client.Result{Sent:true Attempts:0 StatusCode:401 ResultID: Err:"accounts.List: 401 Unauthorized: CONSENT_INVALID"}`
	redacttest.AssertVerbs(t, res, resText, resText)
	redacttest.AssertRedacted(t, res, secrets)

	resp := client.Response{Meta: client.Meta{StatusCode: 201, RequestID: "r-1"}, Header: hdr}
	const respText = "client.Response{Meta:client.Meta{Operation: RequestID:r-1 EchoedRequestID: StatusCode:201 Attempts:0 Date: SCAApproach: RetryAfter:0s} " +
		"Header:map[Content-Type:application/json Psu-Id:[redacted] Tpp-Redirect-Uri:https://tpp.example/cb?[redacted]]}"
	redacttest.AssertVerbs(t, resp, respText, respText)
	redacttest.AssertRedacted(t, resp, secrets)

	op := client.Operation{Name: "accounts.Balances", Method: "GET", Path: "/v1/accounts/MARK-acc/balances", Query: url.Values{"q": {"MARK-acc"}}}
	const opText = "client.Operation{Name:accounts.Balances Method:GET Path:/v1/accounts/{id}/balances Query:[redacted] Body: Repeatable:false ResultID: Require:[]}"
	redacttest.AssertVerbs(t, op, opText, opText)
	redacttest.AssertRedacted(t, op, secrets)

	psu := client.PSU{ID: "MARK-psu", IPAddress: "MARK-state", HTTPMethod: "GET"}
	const psuText = "client.PSU{ID:[redacted] IPAddress:[redacted] HTTPMethod:GET}"
	redacttest.AssertVerbs(t, psu, psuText, psuText)
	redacttest.AssertRedacted(t, psu, secrets)

	const linkText = "client.Link{Href:https://bank.example/{id}/{id}?[redacted] Verbs:[GET]}"
	redacttest.AssertVerbs(t, links[client.LinkSCARedirect], linkText, linkText)
	redacttest.AssertVerbs(t, links, "client.Links{scaRedirect:"+linkText+"}", "client.Links{scaRedirect:"+linkText+"}")
	redacttest.AssertHidden(t, links, secrets)
}
