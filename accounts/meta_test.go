package accounts_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
)

// TestMetaOfEveryCall: every method of the Service that calls the bank
// gives, on success, the response metadata of its answer, whose
// RequestID is the X-Request-ID the bank saw on the wire: a typed result
// by its Meta method, a list through client.SaveMeta.
func TestMetaOfEveryCall(t *testing.T) {
	svc := newMockService(t)
	var wire metatest.Wire
	answer := func(method, path string, status int, body string) {
		httpmock.RegisterResponder(method, baseURL+path, func(req *http.Request) (*http.Response, error) {
			wire.Saw(req)
			resp := httpmock.NewStringResponse(status, body)
			resp.Header.Set("Content-Type", "application/json")
			return resp, nil
		})
	}
	const (
		txPath   = "/v1/accounts/" + acc1 + "/transactions"
		cardPath = "/v1/card-accounts/" + cardAccountID
		txPage   = `{"account":{"bban":"12345678903"},"transactions":{"booked":[],"pending":[]}}`
		cardPage = `{"cardAccount":{"maskedPan":"552216******4810"},"cardTransactions":{"booked":[],"pending":[]}}`
		balances = `{"balances":[{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"interimBooked"}]}`
	)
	answer(http.MethodPost, "/v1/bank-offered-consents", http.StatusCreated, `{"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)
	answer(http.MethodGet, "/v1/accounts", http.StatusOK, `{"accounts":[{"resourceId":"`+acc1+`"}]}`)
	answer(http.MethodGet, "/v1/accounts/"+acc1, http.StatusOK, `{"account":{"resourceId":"`+acc1+`"}}`)
	answer(http.MethodGet, txPath, http.StatusOK, txPage)
	answer(http.MethodGet, txPath+"/"+detailsID, http.StatusOK, `{"transactionsDetails":{"transactionId":"`+detailsID+`"}}`)
	answer(http.MethodGet, "/v1/accounts/"+acc1+"/balances", http.StatusOK, balances)
	answer(http.MethodGet, "/v1/card-accounts", http.StatusOK, `{"cardAccounts":[{"resourceId":"`+cardAccountID+`"}]}`)
	answer(http.MethodGet, cardPath, http.StatusOK, `{"cardAccount":{"resourceId":"`+cardAccountID+`"}}`)
	answer(http.MethodGet, cardPath+"/transactions", http.StatusOK, cardPage)
	answer(http.MethodGet, cardPath+"/balances", http.StatusOK, balances)
	answer(http.MethodGet, "/v1/agreements", http.StatusOK, `[{"id":"a-1"}]`)

	ro := psuPresent()
	calls := []struct {
		op     string
		status int
		call   func(context.Context) (client.Meta, error)
	}{
		{"accounts.StartConsent", http.StatusCreated, func(ctx context.Context) (client.Meta, error) {
			r, err := svc.StartConsent(ctx, client.WithRedirectURI(redirectURI), client.WithTPPSessionID(sessionID))
			return meta(r, err)
		}},
		{"accounts.List", http.StatusOK, func(ctx context.Context) (m client.Meta, err error) {
			_, err = svc.List(ctx, nil, append(ro, client.SaveMeta(&m))...)
			return m, err
		}},
		{"accounts.Get", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Get(ctx, acc1, ro...)) }},
		{"accounts.Transactions", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.Transactions(ctx, acc1, nil, ro...))
		}},
		{"accounts.TransactionsAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.TransactionsAt(ctx, txPath, ro...))
		}},
		{"accounts.NextTransactions", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.NextTransactions(ctx, acc1, txPath, ro...))
		}},
		{"accounts.TransactionDetails", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.TransactionDetails(ctx, acc1, detailsID, ro...))
		}},
		{"accounts.Balances", http.StatusOK, func(ctx context.Context) (client.Meta, error) { return meta(svc.Balances(ctx, acc1, ro...)) }},
		{"accounts.CardAccounts", http.StatusOK, func(ctx context.Context) (m client.Meta, err error) {
			_, err = svc.CardAccounts(ctx, append(ro, client.SaveMeta(&m))...)
			return m, err
		}},
		{"accounts.CardAccount", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.CardAccount(ctx, cardAccountID, ro...))
		}},
		{"accounts.CardTransactions", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.CardTransactions(ctx, cardAccountID, nil, ro...))
		}},
		{"accounts.CardTransactionsAt", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.CardTransactionsAt(ctx, cardPath+"/transactions", ro...))
		}},
		{"accounts.NextCardTransactions", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.NextCardTransactions(ctx, cardAccountID, cardPath+"/transactions", ro...))
		}},
		{"accounts.CardBalances", http.StatusOK, func(ctx context.Context) (client.Meta, error) {
			return meta(svc.CardBalances(ctx, cardAccountID, ro...))
		}},
		{"accounts.Agreements", http.StatusOK, func(ctx context.Context) (m client.Meta, err error) {
			_, err = svc.Agreements(ctx, append(ro, client.SaveMeta(&m))...)
			return m, err
		}},
	}
	for _, c := range calls {
		before := len(wire.Sent())
		m, err := c.call(t.Context())
		require.NoError(t, err, c.op)
		wire.Check(t, before, c.op, c.status, m)
	}
}

// meta returns the metadata of a result r of a call that ended with err.
func meta[T interface{ Meta() client.Meta }](r T, err error) (client.Meta, error) {
	if err != nil {
		return client.Meta{}, err
	}
	return r.Meta(), nil
}
