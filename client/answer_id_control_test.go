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

// TestResultIDRefusedAsCheckIDRefuses: the id a create's answer gives of
// the created resource, in its member (a paymentId, a basketId) or in
// its links (ResultIDFromLinks), is refused as client.CheckID refuses a
// bank's id: a C1 control (U+009B, CSI: a terminal escape) too, and in
// the links also U+FFFD, which the member's reading refused already.
// Such an id was handed to the Hook (a journal) and to the caller as the
// created resource's: a C1 control by either way, U+FFFD by the links.
func TestResultIDRefusedAsCheckIDRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"member C1":    `{"transactionStatus":"RCVD","basketId":"b-1\u009b2JFORGED"}`,
		"links C1":     `{"transactionStatus":"RCVD","_links":{"self":{"href":"/api/v1/signing-baskets/b-1%C2%9B2JFORGED"}}}`,
		"links U+FFFD": `{"transactionStatus":"RCVD","_links":{"self":{"href":"/api/v1/signing-baskets/b-1%EF%BF%BDFORGED"}}}`,
		"links NEL":    `{"transactionStatus":"RCVD","_links":{"self":{"href":"/api/v1/signing-baskets/b-1%C2%85FORGED"}}}`,
	} {
		tr := &cannedTransport{status: http.StatusCreated, body: body}
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
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrOutcomeUnknown, name)
		assert.ErrorIs(t, err, ErrUnusableAnswer, name)
		assert.Empty(t, got.ResultID, name)
		assert.NotContains(t, fmt.Sprintf("%v %+v", err, err), "FORGED", name)
		assert.Equal(t, 1, tr.calls, name)
	}

	// The ids of the interface are taken as before.
	for _, id := range []string{"b-1", "enc!!I-HFM1MFfmXXkRmCdc_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h", "æøå-1", strings.Repeat("x", MaxIDLength)} {
		tr := &cannedTransport{status: http.StatusCreated, body: `{"transactionStatus":"RCVD","basketId":"` + id + `"}`}
		c := newTestClient(t, "https://bank.example/api", WithHTTPClient(&http.Client{Transport: tr}))
		var got Result
		_, err := c.Do(t.Context(), Operation{Name: "baskets.Create", Method: http.MethodPost, Path: "/v1/signing-baskets",
			Body: map[string]any{"paymentIds": []string{"p"}}, ResultID: "basketId", ResultIDFromLinks: true,
			Hook: func(context.Context, *Call) (func(Result), error) {
				return func(r Result) { got = r }, nil
			}}, nil)
		require.NoError(t, err, id)
		assert.Equal(t, id, got.ResultID)
	}
}
