package journal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// A resend whose own outcome is unknown (the connection lost after it
// left) may still be under way at the bank, exactly as a first create
// whose outcome is unknown: the next Resolve must not send the create
// once more at once, but wait as it waits for the first (ErrInFlight or
// the resend's claim), sending nothing meanwhile.
func TestResendWithUnknownOutcomeIsNotSentAgainAtOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, _ := newJournal(t)
	e := inDoubt(t, b, c, j, `{"resend":"lost"}`)

	b.drop.Store(1) // the resend's answer is lost too
	posts := b.posts.Load()
	_, err := j.Resolve(ctx, c, e)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	require.Equal(t, posts+1, b.posts.Load(), "one resend")
	require.NoError(t, j.Flush(ctx))

	_, err = j.Resolve(ctx, c, e)
	require.Error(t, err, "the bank may still be working on the resend")
	assert.True(t, errorsIsAny(err, journal.ErrInFlight, journal.ErrClaimed), "got %v", err)
	assert.Equal(t, posts+1, b.posts.Load(), "nothing sent while the bank may still work on the resend")
	got, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	assert.True(t, got.InDoubt())
}

// A resend the bank answered 2xx without an id the SDK can read created
// the resource: like a first create answered so, the entry is settled as
// existing (ResolvedDuplicate) and the create is never sent a third time.
func TestResendAnswered2xxWithoutIDIsNeverSentAgain(t *testing.T) {
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
		switch posts.Add(1) {
		case 1: // the create: lost before the bank acted
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		case 2: // the resend: accepted, without the id
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"transactionStatus":"RCVD"}`)
		default: // a bank whose duplicate check missed it
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"thingId":"second","transactionStatus":"RCVD"}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Journal test TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)

	id := uuid.NewString()
	_, err = c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(`{"n":1}`), ResultID: thing.ResultID, Hook: j.Hook(c, thing)}, nil, client.WithRequestID(id))
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	journal.Age(j, e)

	res, err := j.Resolve(ctx, c, e)
	if err == nil {
		assert.Equal(t, journal.ResolvedDuplicate, res.Kind, "the resend created it, its id unknown")
		assert.NotEmpty(t, res.ResendRequestID)
	}
	require.NoError(t, j.Flush(ctx))
	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	_, _ = j.Resolve(ctx, c, e)
	assert.EqualValues(t, 2, posts.Load(), "the create was sent a third time after the bank accepted the resend")
	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	assert.False(t, e.InDoubt(), "the resource exists: the entry is settled")
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
