package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A create whose id comes from its links (a signing basket's basketId,
// ResultIDFromLinks) gets the id its self link names, even when another
// link of the answer (the scaRedirect) is longer than MaxHrefLength: the
// resource exists and its Hook (a journal) must hear of its id. An id
// from the links is bounded as a member's is (MaxIDLength).
func TestResultIDFromLinksBesideOverlongLink(t *testing.T) {
	long := "https://bank.example/sca/" + strings.Repeat("a", MaxHrefLength)
	for _, tc := range []struct {
		name, self, want string
		tooLong          bool
	}{
		{"long scaRedirect", "/api/v1/signing-baskets/b-1", "b-1", true},
		{"long id", "/api/v1/signing-baskets/" + strings.Repeat("b", MaxIDLength+1), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sca := long
			if tc.name == "long id" {
				sca = "https://bank.example/sca/1"
			}
			tr := &cannedTransport{status: http.StatusCreated,
				body: fmt.Sprintf(`{"transactionStatus":"RCVD","_links":{"self":{"href":%q},"scaRedirect":{"href":%q}}}`, tc.self, sca)}
			c := newTestClient(t, "https://bank.example/api", WithHTTPClient(&http.Client{Transport: tr}))
			var got Result
			var out struct {
				Links Links `json:"_links"`
			}
			_, err := c.Do(t.Context(), Operation{Name: "baskets.Create", Method: http.MethodPost, Path: "/v1/signing-baskets",
				Body: map[string]any{"paymentIds": []string{"p"}}, ResultID: "basketId", ResultIDFromLinks: true,
				Hook: func(context.Context, *Call) (func(Result), error) {
					return func(r Result) { got = r }, nil
				}}, &out)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorIs(t, err, ErrValueTooLong)
			assert.Equal(t, tc.want, got.ResultID)
			assert.Equal(t, 1, tr.calls)
		})
	}
}
