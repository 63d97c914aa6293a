package accounts_test

import (
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

// TestStartConsentRefusesUnusableLink checks that StartConsent, whose
// documentation says to send the PSU to the answer's SCARedirect, refuses
// a scaRedirect the PSU's browser must not be sent to: another scheme
// than https (javascript:, data:, plain http off loopback), a relative
// link, one with user info. The sca package ignores such links
// (sca.Prepared.Redirect); the consent answer used to return them as a
// valid consent.
//
// Before the fix, StartConsent returned the consent with a nil error and
// SCARedirect gave "javascript:alert(document.cookie)".
func TestStartConsentRefusesUnusableLink(t *testing.T) {
	for _, href := range []string{
		"javascript:alert(document.cookie)",
		"JavaScript:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"http://bank.example/sca",
		"/tap/9999/?state=1",
		"//evil.example/sca",
		"https://user:pw@bank.example/sca",
		"https:///sca",
		"https://bank.example/sca\n",
	} {
		t.Run(href, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodPost, baseURL+"/v1/bank-offered-consents",
				httpmock.NewJsonResponderOrPanic(http.StatusCreated, map[string]any{"_links": map[string]any{"scaRedirect": map[string]any{"href": href}}}))
			consent, err := svc.StartConsent(t.Context(), client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI))
			require.ErrorIs(t, err, accounts.ErrNoSCARedirect)
			assert.Nil(t, consent)
			assert.NotContains(t, err.Error(), "alert", "the link is not echoed")
		})
	}
	// The emulator's link, on loopback, stays usable.
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodPost, baseURL+"/v1/bank-offered-consents",
		httpmock.NewStringResponder(http.StatusCreated, `{"_links":{"scaRedirect":{"href":"http://127.0.0.1:8080/sca?state=1"}}}`))
	consent, err := svc.StartConsent(t.Context(), client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080/sca?state=1", consent.SCARedirect())
}
