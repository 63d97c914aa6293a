package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// journaledProduct is the payment product the journal tests create.
const journaledProduct = "/v1/payments/norwegian-domestic-credit-transfers"

// createJournaled makes one NDCT create of 10.00 NOK to the bank at
// bankURL (its API under /api), recorded by a journal on a file store in
// a new directory, flushed: it returns the store's directory, the
// create's X-Request-ID, the journal and the create's error, for a psd2
// journal command to read.
func createJournaled(t *testing.T, bankURL string, creds *signing.Credentials) (dir, id string, j *journal.Journal, err error) {
	t.Helper()
	ctx := t.Context()
	dir = filepath.Join(t.TempDir(), "store")
	st, serr := store.NewFileStore(dir)
	require.NoError(t, serr)
	c, cerr := client.New(bankURL+"/api", creds, client.WithStore(st), client.WithRetryPolicy(client.RetryPolicy{}),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, cerr)
	var jerr error
	j, jerr = journal.New(st, journal.WithClient(c))
	require.NoError(t, jerr)
	spec := journal.Create{ResultID: "paymentId", DuplicateStatus: http.StatusBadRequest, DuplicateCode: "PAYMENT_FAILED"}
	id = uuid.NewString()
	_, err = c.Do(ctx, client.Operation{Name: "payments.CreateNorwegianDomestic", Method: http.MethodPost, Path: journaledProduct,
		Body: json.RawMessage(`{"instructedAmount":{"amount":"10.00","currency":"NOK"}}`), ResultID: spec.ResultID, Hook: j.Hook(c, spec)},
		nil, client.WithRequestID(id))
	require.NoError(t, j.Flush(ctx))
	return dir, id, j, err
}
