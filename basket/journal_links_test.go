package basket_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A basket's create answer need not carry basketId: its links name the
// basket (Service.Create takes such an answer as a success). The resend
// of Journal.Resolve is the same create, so a resend answered so created
// the basket with the id its links give: ResolvedCreated with that id
// and the answer (its scaRedirect), not ResolvedDuplicate ("its id
// unknown"), which loses the basket the PSU has to approve.
func TestResolvedBasketResendWithIDInLinksIsCreated(t *testing.T) {
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
		default: // the resend: created, named by its links only
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"transactionStatus":"RCVD","_links":{"self":{"href":"/api/v1/signing-baskets/B1"},`+
				`"status":{"href":"/api/v1/signing-baskets/B1/status"},"scaRedirect":{"href":"https://bank.example/sca/B1"}}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Basket journal TPP"),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	j, err := journal.New(store.NewMemoryStore(), journal.WithWritersStopped())
	require.NoError(t, err)
	bsk, err := basket.New(c, basket.WithJournal(j))
	require.NoError(t, err)

	id := uuid.NewString()
	_, err = bsk.Create(ctx, []string{"p1", "p2"}, append(basketOpts(), client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)

	res, err := j.Resolve(ctx, c, e)
	require.NoError(t, err)
	assert.EqualValues(t, 2, posts.Load(), "one resend")
	assert.Equal(t, journal.ResolvedCreated, res.Kind, "the resend created the basket its links name")
	assert.Equal(t, "B1", res.ID)
	var got basket.Basket
	require.NoError(t, json.Unmarshal(res.Answer, &got), "the answer, with its scaRedirect")
	assert.Equal(t, "https://bank.example/sca/B1", got.SCARedirect())
}
