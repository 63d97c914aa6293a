package client

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestAnswerMemberInTwoCases: a 2xx answer decoded into a struct whose
// top level names a member in two cases is ambiguous: encoding/json
// fills the field from the last of them, so {"transactionStatus":"RJCT",
// "TransactionStatus":"ACSC"} read as a payment accepted what the
// interface's member says was rejected. A read fails with
// ErrAmbiguousAnswer, a create's outcome is unknown; the same name twice
// exactly, a map, and a member in another case below the top level are
// left to encoding/json. On the code before, both calls succeeded with
// ACSC.
func TestAnswerMemberInTwoCases(t *testing.T) {
	t.Parallel()
	many := ""
	for i := range 40 {
		many += fmt.Sprintf(`"m%d":%d,`, i, i)
	}
	for _, tc := range []struct {
		name, body string
		ambiguous  bool
	}{
		{"two cases", `{"transactionStatus":"RJCT","TransactionStatus":"ACSC"}`, true},
		{"upper case first", `{"TRANSACTIONSTATUS":"ACSC","transactionStatus":"RJCT"}`, true},
		{"escaped spelling", `{"transactionStatus":"RJCT","Transaction\u0053tatus":"ACSC"}`, true},
		{"Kelvin sign", `{"kind":"a","\u212aind":"b","transactionStatus":"RJCT"}`, true},
		{"among many members", `{` + many + `"transactionStatus":"RJCT",` + many + `"TransactionStatus":"ACSC"}`, true},
		{"the same name twice", `{"transactionStatus":"RJCT","transactionStatus":"ACSC"}`, false},
		{"below the top level", `{"transactionStatus":"ACSC","x":{"a":1,"A":2}}`, false},
		{"many members, one spelling each", `{` + many + `"transactionStatus":"ACSC"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodPost {
					w.WriteHeader(http.StatusCreated)
					w.Write([]byte(`{"paymentId":"p1",` + tc.body[1:]))
					return
				}
				w.Write([]byte(tc.body))
			})
			c := newTestClient(t, b.URL)
			var st struct {
				TransactionStatus string `json:"transactionStatus"`
			}
			_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/payments/x/p1/status"}, &st)
			var created struct {
				PaymentID         string `json:"paymentId"`
				TransactionStatus string `json:"transactionStatus"`
			}
			_, cerr := c.Do(t.Context(), Operation{Method: http.MethodPost, Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, &created)
			var asMap map[string]any
			_, merr := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/payments/x/p1/status"}, &asMap)
			require.NoError(t, merr, "a map keeps every spelling apart")
			if !tc.ambiguous {
				require.NoError(t, err)
				require.NoError(t, cerr)
				return
			}
			assert.ErrorIs(t, err, ErrAmbiguousAnswer)
			assert.ErrorIs(t, cerr, ErrAmbiguousAnswer)
			assert.ErrorIs(t, cerr, ErrOutcomeUnknown)
		})
	}
}
