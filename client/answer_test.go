package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/pathseg"
)

// referenceID is how the client read a created id before it read answers
// once: decode the whole body into a map, then the member; an answer
// with a member of that name in another case gives none (topMember), and
// so does an id that cannot be a path segment.
func referenceID(body []byte, name string) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return "", false
	}
	for k := range obj {
		if k != name && strings.EqualFold(k, name) {
			// encoding/json would decode it into the result's field
			// of name: the answer is ambiguous.
			return "", false
		}
	}
	var id string
	raw, ok := obj[name]
	if !ok || json.Unmarshal(raw, &id) != nil || strings.TrimSpace(id) == "" {
		return "", false
	}
	// An id that cannot be a path segment, or that decoding made of
	// bytes that are not UTF-8 (U+FFFD), is none either.
	if len(id) > MaxIDLength || pathseg.Problem(id) != "" || strings.ContainsRune(id, utf8.RuneError) {
		return "", false
	}
	return id, true
}

var answerSeeds = []string{
	`{"paymentId":"p1"}`, ` { "a" : [1, {"paymentId":"inner"}], "paymentId" : "p2" } `,
	`{"paymentId":"a","paymentId":"b"}`, `{"payment\u0049d":"esc"}`, `{"paymentId":"q\"uote\\"}`,
	`{"PAYMENTID":"case"}`, `{"paymentId":7}`, `{"paymentId":""}`, `{"paymentId":" "}`, `{"x":"}","paymentId":"after"}`,
	`{"x":{"paymentId":"nested"}}`, `["paymentId","p"]`, `"paymentId"`, `{}`, `{"a":null,"paymentId":"n","b":true}`,
	`{"a":-1.5e3,"paymentId":"num"}`, `{"paymentId":"p1","PAYMENTID":"p2"}`, `{"PaymentId":"p2","paymentId":"p1"}`,
}

// The created id read in one pass over the answer is the one decoding
// the whole answer finds, for every shape of answer.
func TestTopMemberAgreesWithDecoding(t *testing.T) {
	for _, body := range answerSeeds {
		want, wantOK := referenceID([]byte(body), "paymentId")
		id, unusable, _ := readAnswer([]byte(body), "paymentId", "", true, nil)
		assert.Equal(t, wantOK, unusable == nil, "%s: %v", body, unusable)
		assert.Equal(t, want, id, body)
	}
}

func FuzzTopMember(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var out map[string]any
		id, unusable, _ := readAnswer([]byte(body), "paymentId", "", true, &out)
		if !json.Valid([]byte(body)) {
			require.Error(t, unusable)
			return
		}
		want, wantOK := referenceID([]byte(body), "paymentId")
		require.Equal(t, wantOK, unusable == nil, "%q: %v", body, unusable)
		require.Equal(t, want, id)
	})
}

// A 2xx create answer reaches the caller's UnmarshalJSON once, with the
// body as encoding/json would give it, and its id is read from the same
// bytes.
func TestCreateAnswerDecodedOnce(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(201)
		w.Write([]byte(" {\"paymentId\":\"p1\",\"transactionStatus\":\"RCVD\"}\n"))
	})
	c := newTestClient(t, b.URL)
	var rec recorder
	var got Result
	hook := func(context.Context, *Call) (func(Result), error) { return func(r Result) { got = r }, nil }
	_, err := c.Do(t.Context(), Operation{Method: http.MethodPost, Path: "/v1/payments/x", Body: map[string]int{}, ResultID: "paymentId", Hook: hook}, &rec)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"paymentId":"p1","transactionStatus":"RCVD"}`}, rec.got)
	assert.Equal(t, "p1", got.ResultID)
}
