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

// A create the bank answered with 2xx but without an id the SDK can use
// (none, one over client.MaxIDLength, or a body cut short after the
// status) reached the bank and was accepted: the resource exists.
// Resolve must not send it again (a resend's fate would hang on the
// bank's duplicate check); it settles the entry as existing, id unknown.
func TestResolveSendsNoCreateTheBankAnswered2xx(t *testing.T) {
	t.Parallel()
	answers := map[string]func(w http.ResponseWriter){
		"no id": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"transactionStatus":"RCVD"}`)
		},
		"overlong id": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"thingId":%q,"transactionStatus":"RCVD"}`, strings.Repeat("a", client.MaxIDLength+1))
		},
		"accepted, empty": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
		},
		"body cut short": func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "200")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"transactionStatus":"RC`)
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var posts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				if r.Method != http.MethodPost {
					http.NotFound(w, r)
					return
				}
				if posts.Add(1) > 1 {
					// A resend: a bank whose duplicate check missed it.
					w.WriteHeader(http.StatusCreated)
					fmt.Fprint(w, `{"thingId":"second","transactionStatus":"RCVD"}`)
					return
				}
				answer(w)
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Journal test TPP"),
				client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
			require.NoError(t, err)
			j, err := journal.New(store.NewMemoryStore())
			require.NoError(t, err)

			id := uuid.NewString()
			var out struct {
				ThingID string `json:"thingId"`
			}
			_, err = c.Do(t.Context(), client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
				Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: j.Hook(c, thing)}, &out, client.WithRequestID(id))
			require.ErrorIs(t, err, client.ErrOutcomeUnknown)
			require.NoError(t, j.Flush(t.Context()))

			e, err := j.Entry(t.Context(), id)
			require.NoError(t, err)
			require.True(t, e.InDoubt(), "no id: the entry stays in doubt until resolved")
			res, err := j.Resolve(t.Context(), c, e)
			require.NoError(t, err)
			assert.EqualValues(t, 1, posts.Load(), "Resolve sent the create again")
			assert.Equal(t, journal.ResolvedDuplicate, res.Kind, "the resource exists, its id unknown")
			assert.Empty(t, res.ResendRequestID)
			assert.NotEmpty(t, res.Reason)
			e, err = j.Entry(t.Context(), id)
			require.NoError(t, err)
			assert.False(t, e.InDoubt())
		})
	}
}
