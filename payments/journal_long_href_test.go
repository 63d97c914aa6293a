package payments_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// A create the bank answered 201 with its paymentId and an scaRedirect
// over client.MaxHrefLength is an error to the caller (the outcome is
// unknown to it: no usable redirect), but the journal keeps the payment's
// id: the payment exists, and an entry left in doubt without it would be
// sent again by Resolve.
func TestJournalKeepsPaymentIDBesideOverlongHref(t *testing.T) {
	c := mockClient(t, client.WithDefaults())
	j := mustJournal(t, store.NewMemoryStore())
	svc, err := payments.New(c, payments.WithJournal(j))
	require.NoError(t, err)
	statusAnswer(http.MethodPost, "/v1/payments/norwegian-domestic-credit-transfers", http.StatusCreated,
		`{"paymentId":"p-77","transactionStatus":"RCVD","_links":{"scaRedirect":{"href":"https://bank.example/`+
			strings.Repeat("x", client.MaxHrefLength)+`"}}}`)
	_, err = svc.CreateNorwegianDomestic(context.Background(), validNDCT(), append(psuPresent(), client.WithRequestID("3f1c1e0e-2b7a-4c39-9d0e-6f2f5b0c9a11"))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	require.ErrorIs(t, err, client.ErrValueTooLong)
	require.Equal(t, 1, httpmock.GetTotalCallCount())
	require.NoError(t, j.Flush(t.Context()))
	e, err := j.Entry(t.Context(), "3f1c1e0e-2b7a-4c39-9d0e-6f2f5b0c9a11")
	require.NoError(t, err)
	assert.Equal(t, "p-77", e.ID)
	assert.False(t, e.InDoubt())
	assert.Empty(t, inDoubt(t, j))
}
