package payments_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestSCARedirectOnlyAUsableLink checks that the SCARedirect of a
// payment's authorisation answer, documented as "the absolute URL of the
// bank's authorisation page, or """ and the page the PSU is sent to, never
// gives a link the PSU's browser must not be sent to: javascript:, data:,
// plain http off loopback, a relative link, user info. The sca package
// ignores the same links (sca.Prepared.Redirect).
//
// Before the fix, SCARedirect returned "javascript:alert(document.cookie)"
// and the rest as they came, for the TPP to redirect the PSU to.
func TestSCARedirectOnlyAUsableLink(t *testing.T) {
	for href, want := range map[string]string{
		"javascript:alert(document.cookie)":        "",
		"JavaScript:alert(1)":                      "",
		"data:text/html,<script>alert(1)</script>": "",
		"http://bank.example/tap/1":                "",
		"/tap/1?state=1":                           "",
		"//evil.example/tap/1":                     "",
		"https://user:pw@bank.example/tap/1":       "",
		"https:///tap/1":                           "",
		"https://bank.example/tap/1":               "https://bank.example/tap/1",
		"http://127.0.0.1:8080/tap/1":              "http://127.0.0.1:8080/tap/1",
	} {
		t.Run(href, func(t *testing.T) {
			svc := newMockService(t)
			body, err := json.Marshal(map[string]any{"scaStatus": "received",
				"_links": map[string]any{"scaRedirect": map[string]any{"href": href, "verbs": []string{"GET"}}}})
			require.NoError(t, err)
			statusAnswer(http.MethodPost, "/v1/payments/sepa-credit-transfers/p1/authorisations", http.StatusCreated, string(body))
			a, err := svc.StartAuthorisation(context.Background(), sepaRef, psuPresent()...)
			require.NoError(t, err)
			assert.Equal(t, want, a.SCARedirect())
			got, _ := client.SCARedirect(&client.Error{Links: a.Links})
			assert.Equal(t, want, got, "client.SCARedirect of an error")
		})
	}
}
