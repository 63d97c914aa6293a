package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secrets a call and its answer carry in the redaction tests.
const (
	rSessionID  = "SESSION-SECRET-123"
	rPSUID      = "7d1c5b2e-0000-4000-8000-00000000abcd"
	rPSUIP      = "203.0.113.9"
	rNationalID = "01017012345"
	rTPPState   = "SECRETSTATE"
	rAccountID  = "ACC-ID-SECRET"
	rBankState  = "BANKSTATE"
	rCookie     = "COOKIE-SECRET"
	rPSUName    = "Kari"
	rBBAN       = "12345678903"
)

var redactBody = []byte(`{"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorName":"` + rPSUName +
	`","creditorAccount":{"bban":"` + rBBAN + `","currency":"NOK"},"debtorAccount":{"bban":"98765432109"}}`)

// redactSecrets lists every secret of the tests and the encodings of the
// body that the printed forms of a []byte use (base64 in JSON, decimal in
// %v, hex in %#v).
func redactSecrets() []string {
	head := redactBody[:12]
	return []string{rSessionID, rPSUID, rPSUIP, rNationalID, rTPPState, rAccountID, rBankState, rCookie,
		rPSUName, rBBAN, "98765432109",
		base64.StdEncoding.EncodeToString(redactBody)[:16],
		strings.Trim(fmt.Sprint(head), "[]"),
		strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%#v", head), "[]byte{"), "}"),
	}
}

// printedForms renders v as fmt, encoding/json and both slog handlers
// show it.
func printedForms(t *testing.T, v any) map[string]string {
	t.Helper()
	var jb, tb bytes.Buffer
	slog.New(slog.NewJSONHandler(&jb, nil)).Info("m", "v", v)
	slog.New(slog.NewTextHandler(&tb, nil)).Info("m", "v", v)
	j, err := json.Marshal(v)
	require.NoError(t, err)
	return map[string]string{
		"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v),
		"%s": fmt.Sprintf("%s", v), "%q": fmt.Sprintf("%q", v), "%d": fmt.Sprintf("%d", v), "%x": fmt.Sprintf("%x", v),
		"json": string(j), "slogJSON": jb.String(), "slogText": tb.String(),
	}
}

// redactedCalls makes two calls through the pipeline and returns what a
// hook, a caller and a logger can hold of them: the payment POST's Call
// and Response and the accounts GET's Call, Result and *Error (a 401
// with a scaRedirect link carrying the bank's state).
func redactedCalls(t *testing.T) (post, get *Call, resp *Response, res Result, bankErr *Error) {
	t.Helper()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "s="+rCookie)
		w.Header().Set("Location", "/v1/accounts/"+rAccountID)
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"CONSENT_INVALID"}],"psuMessage":"Dear `+rPSUName+`",`+
				`"_links":{"scaRedirect":{"href":"https://bank.example/sca/authorize?state=`+rBankState+`&s=`+rSessionID+`"},`+
				`"self":{"href":"/v1/accounts/`+rAccountID+`/balances"}}}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"paymentId":"P1","transactionStatus":"RCVD"}`)
	})
	c := newTestClient(t, b.URL)
	opts := []RequestOption{
		WithRedirectURI("https://tpp.example/cb?state=" + rTPPState),
		WithTPPSessionID(rSessionID), WithPSU(PSU{ID: rPSUID, IPAddress: rPSUIP}), WithPSUIdentity(rNationalID),
		WithQuery("accountId", rAccountID),
	}
	ctx := context.Background()
	op := Operation{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers",
		Body: json.RawMessage(redactBody), ResultID: "paymentId",
		Hook: func(_ context.Context, c *Call) (func(Result), error) { post = c; return nil, nil }}
	resp, err := c.Do(ctx, op, nil, opts...)
	require.NoError(t, err)
	op = Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/accounts/" + rAccountID + "/balances",
		Hook: func(_ context.Context, c *Call) (func(Result), error) {
			get = c
			return func(r Result) { res = r }, nil
		}}
	_, err = c.Do(ctx, op, nil, opts...)
	require.ErrorAs(t, err, &bankErr)
	require.NotNil(t, post)
	require.NotNil(t, get)
	return post, get, resp, res, bankErr
}

// TestPrintedFormsRedact formats every exported type of the package that
// a hook, a validator or a caller may log, in every form fmt, json and
// slog give it, and checks that none shows a secret of the call and that
// each still says what the call was.
func TestPrintedFormsRedact(t *testing.T) {
	post, get, resp, res, bankErr := redactedCalls(t)
	require.Equal(t, redactBody, post.Body, "the call holds the body it sends")
	require.Contains(t, bankErr.SCARedirect(), rBankState, "the error keeps the link for the caller")

	links := bankErr.Links
	type holder struct { // a caller's type holding links, as payments.Initiation does
		PaymentID string
		Links     Links
	}
	all := []string{"%v", "%+v", "%#v", "%s", "%d", "json", "slogJSON", "slogText"}
	tests := []struct {
		name   string
		v      any
		forms  []string // the forms that must be redacted; all when nil
		useful []string // what each form must still show
	}{
		{"*Call POST", post, nil, []string{"payments.Create", "POST", "/v1/payments/norwegian-domestic-credit-transfers", "Psu-Id", "BodyLen", fmt.Sprint(len(redactBody)), "tpp.example/cb"}},
		{"Call GET", *get, nil, []string{"accounts.Balances", "GET", "/v1/accounts/{id}/balances", "Tpp-Session-Id", "X-Psu-Identity"}},
		{"*Response", resp, nil, []string{"201", "Set-Cookie", "Content-Type"}},
		{"Result", res, nil, []string{"401", "CONSENT_INVALID"}},
		{"*Error", bankErr, nil, []string{"accounts.Balances", "CONSENT_INVALID"}},
		{"*OutcomeUnknownError", &OutcomeUnknownError{Operation: "payments.Create", StatusCode: 503, Err: bankErr}, nil, []string{"payments.Create"}},
		{"*NotSentError", &NotSentError{Operation: "payments.Create", Err: bankErr}, nil, []string{"payments.Create"}},
		{"Links", links, []string{"%v", "%+v", "%#v", "slogJSON", "slogText"}, []string{"scaRedirect", "https://bank.example/"}},
		{"Link", links[LinkSCARedirect], []string{"%v", "%+v", "%#v", "slogJSON", "slogText"}, []string{"https://bank.example/"}},
		{"holder of Links", holder{"P1", links}, []string{"%v", "%+v", "%#v", "slogText"}, []string{"P1", "scaRedirect"}},
		{"Operation", Operation{Name: "accounts.Transactions", Method: http.MethodPost, Path: "/v1/accounts/" + rAccountID + "/transactions",
			Query: map[string][]string{"q": {rAccountID}}, Body: json.RawMessage(redactBody)}, nil, []string{"accounts.Transactions", "/v1/accounts/{id}/transactions"}},
	}
	secrets := redactSecrets()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms := printedForms(t, tt.v)
			check := tt.forms
			if check == nil {
				check = all
			}
			for _, f := range check {
				s := forms[f]
				for _, secret := range secrets {
					assert.NotContains(t, s, secret, "%s shows a secret", f)
				}
				for _, u := range tt.useful {
					assert.Contains(t, s, u, "%s", f)
				}
			}
		})
	}
}

// TestLinksJSONStaysData: Links' JSON form is the bank's document, hrefs
// in full, so that a decoded answer encodes back as it came; only the
// JSON of an *Error, which embeds them, redacts them.
func TestLinksJSONStaysData(t *testing.T) {
	href := "https://bank.example/sca?state=" + rBankState
	l := Links{LinkSCARedirect: {Href: href, Verbs: []string{"GET"}}}
	j, err := json.Marshal(l)
	require.NoError(t, err)
	var back Links
	require.NoError(t, json.Unmarshal(j, &back))
	assert.Equal(t, l, back)
	assert.Equal(t, href, back.SCARedirect())

	j, err = json.Marshal(&Error{Operation: "op", StatusCode: 401, Links: l})
	require.NoError(t, err)
	assert.NotContains(t, string(j), rBankState)
	assert.Contains(t, string(j), `"href":"https://bank.example/{id}?[redacted]"`)
}

// TestRedactHref pins the templates the printed forms show for hrefs.
func TestRedactHref(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"/v1/accounts/A1/balances": "/v1/accounts/{id}/balances",
		"/v1/payments/sepa-credit-transfers/P1/status?x=1": "/v1/payments/sepa-credit-transfers/{id}/status?[redacted]",
		"https://u:p@bank.example/api/v1/accounts/A1#f":    "https://[redacted]@bank.example/v1/accounts/{id}#[redacted]",
		"https://bank.example/sca?state=S":                 "https://bank.example/{id}?[redacted]",
		"//bank.example/v1/user":                           "//bank.example/v1/user",
		"mailto:someone@example.com":                       redactedValue,
		"%zz":                                              redactedValue,
	} {
		assert.Equal(t, want, redactHref(in), in)
	}
}

// TestPrintedFormsNil: the forms of nil pointers neither panic nor show
// anything but nil.
func TestPrintedFormsNil(t *testing.T) {
	var e *Error
	assert.Equal(t, "(*client.Error)(nil)", fmt.Sprintf("%#v", e))
	j, err := json.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, "null", string(j))
	assert.Equal(t, "<nil>", e.LogValue().String())
	var c *Call
	assert.NotPanics(t, func() { _ = printedForms(t, c) })
	var wrapped error = &NotSentError{Operation: "x", Err: errors.New("e")}
	assert.NotPanics(t, func() { _ = printedForms(t, Result{Err: wrapped}) })
}
