package journal_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
)

// A resend the bank answered 2xx with a member named in two cases
// ("_links" and "_Links") is an answer the client refuses as ambiguous
// (client.ErrAmbiguousAnswer) for the service's own create: which link
// the PSU is to approve with is not known. Resolve must not hand it out
// as the created resource's answer (its scaRedirect would be the last of
// the two, the one the interface does not name); the resource exists,
// so the entry is settled as existing, and nothing is sent a third time.
func TestResendWithAmbiguousAnswerIsNotReportedCreated(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if posts.Add(1) == 1 { // the first create: lost before the bank acted
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"thingId":"t-2","transactionStatus":"RCVD",`+
			`"_links":{"scaRedirect":{"href":"https://bank.example/sca"}},`+
			`"_Links":{"scaRedirect":{"href":"https://elsewhere.example/sca"}}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Journal test TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	j, _ := newJournal(t)

	id := "ambiguous-resend"
	require.ErrorIs(t, create(ctx, c, j, id, `{"n":1}`), client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	journal.Age(j, e)

	res, err := j.Resolve(ctx, c, e)
	require.NoError(t, err)
	require.EqualValues(t, 2, posts.Load(), "one resend")
	assert.NotEqual(t, journal.ResolvedCreated, res.Kind, "an ambiguous answer reported as the created resource's")
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind, "the bank accepted the resend: the resource exists")
	assert.Nil(t, res.Answer, "the ambiguous answer handed out")
	require.NoError(t, j.Flush(ctx))

	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	assert.False(t, e.InDoubt())
	res, err = j.Resolve(ctx, c, e)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
	assert.EqualValues(t, 2, posts.Load(), "the create sent a third time")
}
