package accounts_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
)

// TestBankErrors checks that every error a TPP must act on is reachable
// with errors.Is, on each kind of call, from the platform's documents.
func TestBankErrors(t *testing.T) {
	calls := []struct {
		name, path string
		call       func(context.Context, *accounts.Service) error
	}{
		{"List", "/v1/accounts", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.List(ctx, nil, psuPresent()...)
			return err
		}},
		{"Balances", "/v1/accounts/" + acc1 + "/balances", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.Balances(ctx, acc1, psuAbsent()...)
			return err
		}},
		{"Transactions", "/v1/accounts/" + acc1 + "/transactions", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.Transactions(ctx, acc1, nil, psuAbsent()...)
			return err
		}},
		{"CardAccounts", "/v1/card-accounts", func(ctx context.Context, s *accounts.Service) error {
			_, err := s.CardAccounts(ctx, psuPresent()...)
			return err
		}},
	}
	sentinels := []error{client.ErrSCARequired, client.ErrSCAExpired, client.ErrConsentExpired, client.ErrConsentInvalid, client.ErrConsentUnknown,
		client.ErrAccessExceeded, accounts.ErrCardAccountsNotSupported, budget.ErrExhausted}
	for _, doc := range []struct {
		file   string
		status int
		want   []error
		code   string
	}{
		{"error-401-sca-redirect.json", http.StatusUnauthorized, []error{client.ErrSCARequired}, "CONSENT_INVALID"},
		{"error-403-consent-unknown.json", http.StatusForbidden, []error{client.ErrConsentUnknown}, "CONSENT_UNKNOWN"},
		{"error-429-access-exceeded.json", http.StatusTooManyRequests, []error{client.ErrAccessExceeded}, "ACCESS_EXCEEDED"},
	} {
		for _, c := range calls {
			t.Run(doc.file+"/"+c.name, func(t *testing.T) {
				svc := newMockService(t)
				respond(t, http.MethodGet, c.path, doc.status, doc.file, nil)
				err := c.call(t.Context(), svc)
				require.Error(t, err)
				for _, s := range sentinels {
					assert.Equal(t, contains(doc.want, s), errors.Is(err, s), "errors.Is(err, %v)", s)
				}
				var ce *client.Error
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, doc.status, ce.StatusCode)
				assert.True(t, ce.HasCode(doc.code))
				assert.Equal(t, "accounts."+c.name, ce.Operation)
				link, ok := client.SCARedirect(err)
				if doc.status == http.StatusUnauthorized {
					assert.True(t, ok)
					assert.Equal(t, "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=ec5ae9e2-a56e-45ca-a0fa-ad1dc481e998&context=PRIVATE", link)
				} else {
					assert.False(t, ok)
				}
				assert.NotContains(t, err.Error(), psuID, "no PSU-ID in error strings")
			})
		}
	}
}

func contains(errs []error, target error) bool {
	for _, e := range errs {
		if e == target {
			return true
		}
	}
	return false
}

// TestBankAccessExceededSpendsTheBudget: after the bank's own 429 for a
// call without the PSU, the SDK refuses further calls of that budget
// before they reach the bank.
func TestBankAccessExceededSpendsTheBudget(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/balances", http.StatusTooManyRequests, "error-429-access-exceeded.json", nil)
	ctx := t.Context()
	_, err := svc.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, client.ErrAccessExceeded)
	assert.NotErrorIs(t, err, budget.ErrExhausted, "the bank's refusal, not the SDK's")

	a, err := budget.Of(svc.Client()).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Remaining)

	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	assert.ErrorIs(t, err, client.ErrAccessExceeded, "one check covers both refusals")
	assert.Equal(t, 1, calls(), "the second call never reached the bank")

	// With the PSU present the budget does not apply.
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.ErrorIs(t, err, client.ErrAccessExceeded)
	assert.Equal(t, 2, calls())
}

func TestProprietaryFieldsAreKept(t *testing.T) {
	var p accounts.TransactionsPage
	require.NoError(t, json.Unmarshal(testdata(t, "transactions-proprietary.json"), &p))
	require.Len(t, p.Booked, 2)
	first, second := p.Booked[0], p.Booked[1]
	assert.Equal(t, []accounts.ProprietaryInformation{
		{Suffix: "1", Value: "KID 1234567890128"},
		{Suffix: "2", Value: "Faktura 2025-117"},
		{Suffix: "10", Value: "Avtalegiro"},
	}, first.AdditionalInformationProprietary, "ordered by number, 10 after 2")
	v, ok := first.Proprietary(10)
	assert.True(t, ok)
	assert.Equal(t, "Avtalegiro", v)
	_, ok = first.Proprietary(3)
	assert.False(t, ok)
	assert.Equal(t, "5477340649276395", first.TransactionID)
	assert.Equal(t, "-8750.00 NOK", first.TransactionAmount.String())

	assert.Equal(t, []accounts.ProprietaryInformation{{Suffix: "3", Value: `{"archiveReference":"AR-77"}`}},
		second.AdditionalInformationProprietary, "a non-string value is kept as its JSON text")
	assert.Equal(t, "E-0529816286707200", second.EntryReference)

	// Marshalling writes the properties back under their names.
	b, err := json.Marshal(first)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "KID 1234567890128", m["additionalInformationProprietary1"])
	assert.Equal(t, "Avtalegiro", m["additionalInformationProprietary10"])
	assert.Equal(t, map[string]any{"amount": "-8750.00", "currency": "NOK"}, m["transactionAmount"])
	assert.NotContains(t, m, "Status")
	var back accounts.Transaction
	require.NoError(t, json.Unmarshal(b, &back))
	first.Status = ""
	assert.Equal(t, first, back)
}

func TestBudgetErrorNamesNoAccount(t *testing.T) {
	svc := newMockService(t, budget.WithLimit(1, 24*time.Hour))
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/balances", http.StatusOK, "balances.json", nil)
	_, err := svc.Balances(t.Context(), acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
	var be *budget.ExhaustedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "accounts.Balances", be.Operation)
	assert.Equal(t, budget.Balances, be.Endpoint)
	assert.Equal(t, 1, be.Limit)
	for _, secret := range []string{acc1, psuID, sessionID} {
		assert.False(t, strings.Contains(err.Error(), secret))
	}
}
