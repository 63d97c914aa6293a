package accounts_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
)

// TestAccountReadsTakeOnly200: every account information read answers 200
// (docs/interface.md section 10 "Paths"). Another 2xx status (a 204
// without a body, a 202) is a *client.UnexpectedStatusError, never an
// empty account list, an account without fields, a report without
// balances or a page without transactions.
func TestAccountReadsTakeOnly200(t *testing.T) {
	present := []client.RequestOption{client.WithTPPSessionID("ais-session-1"),
		client.WithPSU(client.PSU{ID: "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d", IPAddress: "192.0.2.10"})}
	next := "/v1/accounts/acc-1/transactions?limit=2&offset=2&bookingStatus=both"
	cardNext := "/v1/card-accounts/card-1/transactions?limit=2&offset=2&bookingStatus=both"
	calls := []struct {
		name string
		call func(context.Context, *accounts.Service) (any, error)
	}{
		{"List", func(ctx context.Context, s *accounts.Service) (any, error) { return s.List(ctx, nil, present...) }},
		{"Get", func(ctx context.Context, s *accounts.Service) (any, error) { return s.Get(ctx, "acc-1", present...) }},
		{"Balances", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.Balances(ctx, "acc-1", present...)
		}},
		{"Transactions", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.Transactions(ctx, "acc-1", nil, present...)
		}},
		{"NextTransactions", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.NextTransactions(ctx, "acc-1", next, present...)
		}},
		{"TransactionDetails", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.TransactionDetails(ctx, "acc-1", "tx-1", present...)
		}},
		{"CardAccounts", func(ctx context.Context, s *accounts.Service) (any, error) { return s.CardAccounts(ctx, present...) }},
		{"CardAccount", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.CardAccount(ctx, "card-1", present...)
		}},
		{"CardBalances", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.CardBalances(ctx, "card-1", present...)
		}},
		{"CardTransactions", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.CardTransactions(ctx, "card-1", nil, present...)
		}},
		{"NextCardTransactions", func(ctx context.Context, s *accounts.Service) (any, error) {
			return s.NextCardTransactions(ctx, "card-1", cardNext, present...)
		}},
		{"Agreements", func(ctx context.Context, s *accounts.Service) (any, error) { return s.Agreements(ctx, present...) }},
	}
	for _, c := range calls {
		for _, a := range []struct {
			status int
			body   string
		}{{http.StatusNoContent, ""}, {http.StatusAccepted, "{}"}, {http.StatusResetContent, "{}"}} {
			t.Run(c.name+" "+http.StatusText(a.status), func(t *testing.T) {
				svc := newMockService(t)
				httpmock.RegisterNoResponder(httpmock.NewStringResponder(a.status, a.body).
					HeaderSet(http.Header{"Content-Type": {"application/json"}}))
				got, err := c.call(t.Context(), svc)
				require.Error(t, err, "answer %v", got)
				var ue *client.UnexpectedStatusError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, a.status, ue.StatusCode)
				assert.Equal(t, []int{http.StatusOK}, ue.Named)
				assert.True(t, errors.Is(err, client.ErrUnexpectedStatus))
				assert.Equal(t, 1, httpmock.GetTotalCallCount(), "a read is not retried on an unexpected 2xx")
			})
		}
	}
}
