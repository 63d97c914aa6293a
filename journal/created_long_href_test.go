package journal_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A create the bank answered 201 with its id, but with an scaRedirect
// href longer than client.MaxHrefLength (a decode error: the outcome is
// unknown to the caller), still has its id journaled: the resource
// exists, and the entry must never be left in doubt without it, which
// Resolve would answer by sending the create again.
func TestCreatedIDKeptWhenAnswerHasOverlongHref(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		n := posts.Add(1)
		w.WriteHeader(http.StatusCreated)
		href := "https://bank.example/sca/" + strings.Repeat("a", client.MaxHrefLength)
		fmt.Fprintf(w, `{"thingId":"t-%d","transactionStatus":"RCVD","_links":{"scaRedirect":{"href":%q}}}`, n, href)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Journal test TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)

	id := uuid.NewString()
	var out struct {
		ThingID string                 `json:"thingId"`
		Links   map[string]client.Link `json:"_links"`
	}
	_, err = c.Do(t.Context(), client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: j.Hook(c, thing)}, &out, client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrValueTooLong)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(t.Context()))

	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, "t-1", e.ID, "the id the bank answered with is journaled")
	assert.False(t, e.InDoubt(), "a created resource is not in doubt")
	assert.EqualValues(t, 1, posts.Load())
}
