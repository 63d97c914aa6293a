package client

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreateAnswerIDInAnotherCase: encoding/json decodes a member into a
// struct field whatever the case of its name, the last one winning, so
// a create answer {"paymentId":"p1",...,"PAYMENTID":"p2"} decodes to a
// result with paymentId p2. The id the client reads for the call's Hook
// (a journal) must not be another one (p1): an answer that names its id
// under two spellings of the member (or names its links so, when the
// id comes from them) is unusable, the create's outcome unknown, as an
// answer without the id is. The result's decoding and the Hook agree on
// every other answer.
func TestCreateAnswerIDInAnotherCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, under, want string
	}{
		{`{"paymentId":"p1","transactionStatus":"RCVD","PAYMENTID":"p2"}`, "", ""},
		{`{"PaymentId":"p2","paymentId":"p1"}`, "", ""},
		{`{"payment\u0049D":"p2","paymentId":"p1"}`, "", ""},
		{`{"PAYMENTID":"p2"}`, "", ""},
		{`{"_links":{"self":{"href":"/v1/signing-baskets/b1"}},"_LINKS":{"self":{"href":"/v1/signing-baskets/b2"}}}`, "/v1/signing-baskets", ""},
		{`{"_links":{"self":{"href":"/v1/signing-baskets/b1"}}}`, "/v1/signing-baskets", "b1"},
		{`{"paymentId":"p1","x":{"PAYMENTID":"nested"}}`, "", "p1"},
		{`{"paymentId":"p1","paymentIdentifier":"other"}`, "", "p1"},
	} {
		id, unusable, _ := readAnswer([]byte(tc.body), "paymentId", tc.under, true, nil)
		if tc.under != "" {
			id, unusable, _ = readAnswer([]byte(tc.body), "basketId", tc.under, true, nil)
		}
		assert.Equal(t, tc.want, id, tc.body)
		if tc.want == "" {
			assert.ErrorIs(t, unusable, ErrUnusableAnswer, tc.body)
		} else {
			assert.NoError(t, unusable, tc.body)
		}
	}

	// Through Do: the Hook never gets an id the caller's result does not hold.
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"paymentId":"p1","transactionStatus":"RCVD","PAYMENTID":"p2"}`))
	})
	c := newTestClient(t, b.URL)
	var got Result
	hook := func(context.Context, *Call) (func(Result), error) { return func(r Result) { got = r }, nil }
	var out struct {
		PaymentID string `json:"paymentId"`
	}
	_, err := c.Do(t.Context(), Operation{Method: http.MethodPost, Path: "/v1/payments/x", Body: map[string]int{}, ResultID: "paymentId", Hook: hook}, &out)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.ErrorIs(t, err, ErrUnusableAnswer)
	assert.Empty(t, got.ResultID)
	assert.Equal(t, http.StatusCreated, got.StatusCode)

	// encoding/json's reading of that answer, which the check follows.
	var s struct {
		PaymentID string `json:"paymentId"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"paymentId":"p1","PAYMENTID":"p2"}`), &s))
	assert.Equal(t, "p2", s.PaymentID)
}
