package client

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorMembersExactName: an error answer's tppMessages, _links and
// psuMessage are read under the interface's names only, and not at all
// when the body names one also in another case. encoding/json read any
// case, the last winning: a "PSUMessage" after the bank's psuMessage
// replaced the text shown to the PSU, an "_LINKS" its scaRedirect, a
// "TPPMessages" its codes. The psuMessage shown is cut to MaxTextLength.
func TestErrorMembersExactName(t *testing.T) {
	t.Parallel()
	msgs := `[{"category":"ERROR","code":"CONSENT_EXPIRED"}]`
	links := `{"scaRedirect":{"href":"https://bank.example/sca"}}`
	for _, tt := range []struct {
		name, body      string
		psu             string
		codes, hasLinks bool
	}{
		{"the interface's names", `{"tppMessages":` + msgs + `,"_links":` + links + `,"psuMessage":"the bank's"}`, "the bank's", true, true},
		{"psuMessage twice", `{"psuMessage":"the bank's","PSUMessage":"smuggled"}`, "", false, false},
		{"psuMessage twice, other first", `{"PSUMessage":"smuggled","psuMessage":"the bank's"}`, "", false, false},
		{"psuMessage in another case", `{"PsuMessage":"smuggled"}`, "", false, false},
		{"_links twice", `{"_links":` + links + `,"_LINKS":{"scaRedirect":{"href":"https://evil.example/sca"}}}`, "", false, false},
		{"tppMessages twice", `{"tppMessages":[],"TPPMessages":` + msgs + `}`, "", false, false},
		{"long psuMessage", `{"psuMessage":"` + strings.Repeat("é", 4000) + `"}`, strings.Repeat("é", MaxTextLength-1) + "…", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, tt.body)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.psu, e.PSUMessage)
			assert.Equal(t, tt.codes, e.HasCode(CodeConsentExpired), "codes: %v", e.Messages)
			assert.Equal(t, tt.hasLinks, e.Links != nil, "links: %v", e.Links)
			assert.NotContains(t, e.PSUMessage, "smuggled")
			for _, l := range e.Links {
				assert.NotContains(t, l.Href, "evil")
			}
		})
	}
}
