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
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// readsWithout are the account information reads, each with the options
// ro; next and cardNext are next links of account acc-1 and card card-1.
func readsWithout(ro []client.RequestOption) []struct {
	name string
	call func(context.Context, *accounts.Service) error
} {
	next := "/v1/accounts/acc-1/transactions?limit=2&offset=2&bookingStatus=both"
	cardNext := "/v1/card-accounts/card-1/transactions?limit=2&offset=2&bookingStatus=both"
	return []struct {
		name string
		call func(context.Context, *accounts.Service) error
	}{
		{"List", func(ctx context.Context, s *accounts.Service) error { _, err := s.List(ctx, nil, ro...); return err }},
		{"Get", func(ctx context.Context, s *accounts.Service) error { _, err := s.Get(ctx, "acc-1", ro...); return err }},
		{"Balances", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.Balances(ctx, "acc-1", ro...)
			return err
		}},
		{"Transactions", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.Transactions(ctx, "acc-1", nil, ro...)
			return err
		}},
		{"TransactionsAt", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.TransactionsAt(ctx, next, ro...)
			return err
		}},
		{"NextTransactions", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.NextTransactions(ctx, "acc-1", next, ro...)
			return err
		}},
		{"TransactionsIter", func(ctx context.Context, s *accounts.Service) error {
			for _, err := range s.TransactionsIter(ctx, "acc-1", nil, ro...) {
				return err
			}
			return nil
		}},
		{"TransactionDetails", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.TransactionDetails(ctx, "acc-1", "tx-1", ro...)
			return err
		}},
		{"CardAccounts", func(ctx context.Context, s *accounts.Service) error { _, err := s.CardAccounts(ctx, ro...); return err }},
		{"CardAccount", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.CardAccount(ctx, "card-1", ro...)
			return err
		}},
		{"CardBalances", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.CardBalances(ctx, "card-1", ro...)
			return err
		}},
		{"CardTransactions", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.CardTransactions(ctx, "card-1", nil, ro...)
			return err
		}},
		{"CardTransactionsAt", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.CardTransactionsAt(ctx, cardNext, ro...)
			return err
		}},
		{"NextCardTransactions", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.NextCardTransactions(ctx, "card-1", cardNext, ro...)
			return err
		}},
		{"Agreements", func(ctx context.Context, s *accounts.Service) error { _, err := s.Agreements(ctx, ro...); return err }},
	}
}

// TestReadsNeedTPPSessionID: every account information call belongs to
// the PSU's session, which the platform keys by PSU-ID and TPP-Session-ID
// ("Every later AIS call sends PSU-ID and TPP-Session-ID",
// docs/interface.md section 10 "Session model"), and any of them may
// start SCA (section 5.8: the first account call is answered 401 with a
// scaRedirect), whose redirect brings back "the TPP-Session-ID of the
// request that started SCA" (section 6). The bank answers a read without
// it 400 HTTP_HEADER_REQUIRED. A read without TPP-Session-ID is refused
// before it is sent, with a *client.ValidationError naming the header, as
// StartConsent is. Before the fix only StartConsent required it: every
// read went out without one.
func TestReadsNeedTPPSessionID(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, `{}`))
	noSession := []client.RequestOption{client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP})}
	for _, tc := range readsWithout(noSession) {
		httpmock.ZeroCallCounters()
		err := tc.call(t.Context(), svc)
		require.Error(t, err, tc.name)
		assert.True(t, errors.Is(err, client.ErrNotSent), "%s: %v", tc.name, err)
		assert.True(t, errors.Is(err, client.ErrValidation), "%s: %v", tc.name, err)
		var ve *client.ValidationError
		if assert.True(t, errors.As(err, &ve), tc.name) {
			assert.Equal(t, "TPP-Session-ID", ve.Field, tc.name)
		}
		assert.Zero(t, httpmock.GetTotalCallCount(), "%s: nothing is sent", tc.name)
	}
}

// TestEmulatorReadWithoutSessionIDSpendsNoBudget: the bank refuses an
// account read without TPP-Session-ID (400 HTTP_HEADER_REQUIRED, sent
// past the Service); through the Service the same read without the PSU
// is refused locally and leaves the account's 4 calls a day untouched.
// Before the fix the Service sent it, the bank answered 400 and the call
// counted against the without-PSU budget.
func TestEmulatorReadWithoutSessionIDSpendsNoBudget(t *testing.T) {
	t.Parallel()
	b := startBank(t, nil)
	ctx := t.Context()
	sess, accountID := b.firstAccount(ctx, t, emulator.CustomerKari)

	// The bank's answer to a read without TPP-Session-ID.
	_, err := b.c.Do(ctx, client.Operation{Name: "raw balances", Method: http.MethodGet,
		Path: "/v1/accounts/{accountId}/balances", Params: map[string]string{"accountId": accountID}}, nil,
		client.WithRedirectURI(redirectURI), client.WithPSU(client.PSU{ID: sess.PSUID}))
	var ce *client.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, http.StatusBadRequest, ce.StatusCode)
	assert.True(t, ce.HasCode("HTTP_HEADER_REQUIRED"), "%v", err)

	left := func() int {
		a, err := budget.Of(b.c).Remaining(ctx, accountID, budget.Balances)
		require.NoError(t, err)
		return a.Remaining
	}
	before := left()
	_, err = b.svc.Balances(ctx, accountID, client.WithRedirectURI(redirectURI), client.WithPSU(client.PSU{ID: sess.PSUID}))
	require.Error(t, err)
	assert.ErrorIs(t, err, client.ErrNotSent)
	assert.ErrorIs(t, err, client.ErrValidation)
	assert.Equal(t, before, left(), "a call refused before sending spends nothing of the budget")
}
