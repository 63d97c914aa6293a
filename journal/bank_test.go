package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// thing is how the test bank's creates are described to the journal: the
// answer names the resource "thingId", and a second identical create is
// refused with 409 DUPLICATE while the first exists.
var thing = journal.Create{ResultID: "thingId", DuplicateStatus: http.StatusConflict, DuplicateCode: "DUPLICATE"}

// thingBank is a bank under /api that creates things with POST
// /v1/things and reads their status. It can lose the connection of the
// next POSTs before acting on them (the outcome is unknown), and hold the
// next POST until released, reporting its X-Request-ID when it arrives.
type thingBank struct {
	srv   *httptest.Server
	posts atomic.Int32 // POSTs that reached the bank
	drop  atomic.Int32 // next POSTs to lose the answer of

	mu      sync.Mutex
	hold    bool
	arrived chan string   // X-Request-ID of a held POST
	release chan struct{} // closed to let the held POST go on
	seen    map[string]bool
	// status, when set, is the transactionStatus of every answer (a
	// JSON string's contents), RCVD and ACTC otherwise.
	status atomic.Pointer[string]
}

// txStatus is the transactionStatus the bank answers, def unless set.
func (b *thingBank) txStatus(def string) string {
	if s := b.status.Load(); s != nil {
		return *s
	}
	return def
}

func newThingBank(t *testing.T) *thingBank {
	t.Helper()
	b := &thingBank{seen: map[string]bool{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *thingBank) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/things":
		body, _ := io.ReadAll(r.Body)
		n := b.posts.Add(1)
		if b.drop.Add(-1) >= 0 { // lost before the bank acted on it
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		b.mu.Lock()
		hold, arrived, release := b.hold, b.arrived, b.release
		b.hold = false
		b.mu.Unlock()
		if hold {
			arrived <- r.Header.Get("X-Request-ID")
			<-release
		}
		b.mu.Lock()
		dup := b.seen[string(body)]
		b.seen[string(body)] = true
		b.mu.Unlock()
		if dup {
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"DUPLICATE","text":"exists"}]}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"thingId":"t-%d","transactionStatus":"%s"}`, n, b.txStatus("RCVD"))
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/status"):
		fmt.Fprintf(w, `{"transactionStatus":"%s"}`, b.txStatus("ACTC"))
	default:
		http.NotFound(w, r)
	}
}

// holdNext makes the next POST wait for the returned release function
// once it has arrived, which it reports on the returned channel.
func (b *thingBank) holdNext() (<-chan string, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hold, b.arrived, b.release = true, make(chan string, 1), make(chan struct{})
	rel := b.release
	var once sync.Once
	return b.arrived, func() { once.Do(func() { close(rel) }) }
}

// client returns a client of the test TPP on b, with opts after the
// defaults (no retries).
func (b *thingBank) client(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(b.srv.URL+"/api", testtpp.Credentials(t, "Journal test TPP"), append([]client.Option{
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{})}, opts...)...)
	require.NoError(t, err)
	return c
}

// create sends a journaled create of body through c with X-Request-ID id.
func create(ctx context.Context, c *client.Client, j *journal.Journal, id, body string) error {
	_, err := c.Do(ctx, client.Operation{Name: "things.Create", Method: http.MethodPost, Path: "/v1/things",
		Body: json.RawMessage(body), ResultID: thing.ResultID, Hook: j.Hook(c, thing)}, nil, client.WithRequestID(id))
	return err
}

// inDoubt journals a create of body through c whose answer b loses, and
// returns its entry.
func inDoubt(t *testing.T, b *thingBank, c *client.Client, j *journal.Journal, body string) journal.Entry {
	t.Helper()
	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(t.Context(), c, j, id, body), client.ErrOutcomeUnknown)
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	require.True(t, e.InDoubt())
	journal.Age(j, e) // the bank is done with it
	return e
}

// newJournal returns a journal on a new memory store.
func newJournal(t *testing.T, opts ...journal.Option) (*journal.Journal, store.Store) {
	t.Helper()
	st := store.NewMemoryStore()
	j, err := journal.New(st, opts...)
	require.NoError(t, err)
	return j, st
}
