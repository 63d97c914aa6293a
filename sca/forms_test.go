package sca_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact/redacttest"
	"github.com/tppkit/psd2/sca"
)

// TestRedirectEveryVerb: a Redirect's String is its link in full, by
// design, and so is every fmt verb but %#v (%d and %x too, which printed
// its fields before it had a Format); %#v, both slog handlers and its
// JSON show the link without its query and fragment.
func TestRedirectEveryVerb(t *testing.T) {
	t.Parallel()
	const link = "https://bank.example/tap/9999/?state=MARK-BANK-STATE#MARK-FRAGMENT"
	u, err := url.Parse(link)
	require.NoError(t, err)
	r := sca.Redirect{URL: u, Verbs: []string{"GET"}, Purpose: sca.PurposeConsent}
	const gostring = "sca.Redirect{URL:https://bank.example/tap/9999/?[redacted]#[redacted] Verbs:[GET]}"
	redacttest.AssertVerbs(t, r, link, gostring)
	redacttest.AssertVerbs(t, &r, link, gostring)
	for name, form := range redacttest.Forms(r) {
		if name == "%#v" || name == "slog JSON" || name == "slog text" {
			assert.NotContains(t, form, "MARK", name)
			assert.Contains(t, form, "bank.example/tap/9999/", name)
		}
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://bank.example/tap/9999/?[redacted]#[redacted]","verbs":["GET"]}`, string(b))
	redacttest.AssertVerbs(t, sca.Redirect{}, "", "sca.Redirect{URL: Verbs:[]}")
}

// TestSessionPendingEveryVerb: a Session and a Pending print one text
// under every fmt verb (%q quoted, %#v too), log it as a group of the same
// facts, and show no id, key or state in any form, their JSON included.
func TestSessionPendingEveryVerb(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	s := sca.Session{Key: "kari@example.no", PSUID: "MARK-PSU", PSUCorporateID: "MARK-CORP", TPPSessionID: "MARK-SID",
		Context: client.Corporate, SCAAt: at, AccountIDs: []string{"MARK-ACC"}, ConsentUntil: at.Add(time.Hour)}
	const sText = "sca.Session{psuId=[redacted] psuCorporateId=[redacted] context=CORPORATE scaAt=2026-11-27T10:00:00Z accounts=1 cardAccounts=0 consentExpiresAt=2026-11-27T11:00:00Z}"
	redacttest.AssertVerbs(t, s, sText, sText)
	forms := redacttest.AssertRedacted(t, s, redacttest.WithHex("kari@example.no", "MARK-PSU", "MARK-CORP", "MARK-SID", "MARK-ACC"))
	assert.Contains(t, forms["slog JSON"], `"v":{"psuId":"[redacted]","psuCorporateId":"[redacted]","context":"CORPORATE","scaAt":"2026-11-27T10:00:00Z","accounts":1`)

	p := sca.Pending{Key: "kari@example.no", State: "MARK-STATE", TPPSessionID: "MARK-SID", RedirectURI: "https://tpp.example/cb?state=MARK-STATE",
		CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	const pText = "sca.Pending{state=[redacted] expiresAt=2026-11-27T11:00:00Z}"
	redacttest.AssertVerbs(t, p, pText, pText)
	forms = redacttest.AssertRedacted(t, p, redacttest.WithHex("kari@example.no", "MARK-STATE", "MARK-SID"))
	assert.Contains(t, forms["slog text"], "v.state=[redacted] v.expiresAt=2026-11-27T11:00:00.000Z")
	assert.Contains(t, forms["json"], `"redirectUri":"https://tpp.example/cb?[redacted]"`)
}

// TestCallbackErrorForms: a CallbackError prints and logs as its message,
// %#v shows its fields with the bank's text and the TPP-Session-ID
// redacted, and so does its JSON.
func TestCallbackErrorForms(t *testing.T) {
	t.Parallel()
	e := &sca.CallbackError{System: "sca", Status: 401, Code: "SCA_INVALID", Message: "Kari MARK-name cancelled", TPPSessionID: "MARK-SID"}
	redacttest.AssertVerbs(t, e, e.Error(), `&sca.CallbackError{System:"sca" Status:401 Code:"SCA_INVALID" Message:[redacted] TPPSessionID:[redacted]}`)
	forms := redacttest.AssertRedacted(t, e, redacttest.WithHex("MARK-name", "MARK-SID"))
	assert.Contains(t, forms["slog text"], `v="sca: SCA failed: 401 SCA_INVALID"`)
	assert.JSONEq(t, `{"system":"sca","status":401,"code":"SCA_INVALID","message":"[redacted]","tppSessionId":"[redacted]"}`, forms["json"])
	assert.Equal(t, e.Error(), fmt.Sprint(*e))
}

// TestCallbackErrorSystemNotFreeText: the system parameter of a failure
// redirect is query text anyone can write into the callback URL: a
// national identity number or a name put there does not reach %#v or
// JSON; an ordinary system name ("sca-frontend") still shows.
func TestCallbackErrorSystemNotFreeText(t *testing.T) {
	t.Parallel()
	for _, system := range []string{"12345678911", "Kari Nordmann", "192.0.2.10", "sca\u00e6x", strings.Repeat("a", 65)} {
		e := &sca.CallbackError{System: system, Status: 401, Code: "SCA_INVALID"}
		redacttest.AssertRedacted(t, e, redacttest.WithHex(system))
		assert.Equal(t, `&sca.CallbackError{System:"OTHER" Status:401 Code:"SCA_INVALID" Message: TPPSessionID:}`, fmt.Sprintf("%#v", e), system)
	}
	e := &sca.CallbackError{System: "sca-frontend", Status: 401, Code: "SCA_INVALID"}
	assert.Contains(t, fmt.Sprintf("%#v", e), `System:"sca-frontend"`)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.JSONEq(t, `{"system":"sca-frontend","status":401,"code":"SCA_INVALID"}`, string(b))
}
