package accounts_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestLinkQueryIsCheckedLikeAQuery: a transactions link followed with
// TransactionsAt or NextTransactions (a stored next link) carries the
// query of the transactions call (docs/interface.md section 4.5:
// bookingStatus, dateFrom, dateTo, limit, offset), whose values
// TransactionQuery already holds to the interface: bookingStatus booked,
// pending, both or all (section 2.9), dates YYYY-MM-DD (section 1.7),
// dateTo not before dateFrom, limit and offset whole numbers. A link
// whose query breaks one of them is refused before it is sent, with a
// *client.ValidationError naming the parameter that matches
// ErrInvalidQuery, and spends nothing of the account's 4 calls a day
// without the PSU. Before the fix the Service sent it, the bank answered
// 400 and the call counted against the budget.
func TestLinkQueryIsCheckedLikeAQuery(t *testing.T) {
	t.Parallel()
	b := startBank(t, nil)
	ctx := t.Context()
	sess, id := b.firstAccount(ctx, t, emulator.CustomerKari)
	base := "/v1/accounts/" + id + "/transactions?"
	left := func() int {
		a, err := budget.Of(b.c).Remaining(ctx, id, budget.Transactions)
		require.NoError(t, err)
		return a.Remaining
	}
	for _, tc := range []struct{ name, query, field string }{
		{"bookingStatus unknown", "bookingStatus=bogus", "bookingStatus"},
		{"bookingStatus in capitals", "bookingStatus=BOTH", "bookingStatus"},
		{"bookingStatus information", "bookingStatus=information", "bookingStatus"},
		{"bookingStatus empty", "bookingStatus=", "bookingStatus"},
		{"dateFrom not a date", "bookingStatus=both&dateFrom=2025-13-01", "dateFrom"},
		{"dateTo not a date", "bookingStatus=both&dateTo=31.03.2025", "dateTo"},
		{"dateTo before dateFrom", "bookingStatus=booked&dateFrom=2025-03-31&dateTo=2025-01-01", "dateTo"},
		// A date-time is no date of the query (section 4.5 takes
		// YYYY-MM-DD); the bank refuses it. Before the fix the SDK read
		// it as the date it names and sent it.
		{"dateFrom a date-time", "bookingStatus=both&dateFrom=2025-03-01T00:00:00Z", "dateFrom"},
		{"dateTo a local date-time", "bookingStatus=both&dateTo=2025-03-31T12:00:00", "dateTo"},
		{"limit not a number", "bookingStatus=both&limit=ten", "limit"},
		{"limit zero", "bookingStatus=both&limit=0", "limit"},
		{"offset negative", "bookingStatus=both&offset=-3", "offset"},
	} {
		// The bank's answer to the link followed as it is.
		_, err := b.c.Do(ctx, client.Operation{Name: "raw " + tc.name, Method: http.MethodGet, Path: base + tc.query}, nil, absent(sess)...)
		var ce *client.Error
		if assert.True(t, errors.As(err, &ce), "%s: the bank takes it: %v", tc.name, err) {
			assert.Equal(t, http.StatusBadRequest, ce.StatusCode, tc.name)
		}

		before := left()
		for name, call := range map[string]func() error{
			"TransactionsAt": func() error { _, err := b.svc.TransactionsAt(ctx, base+tc.query, absent(sess)...); return err },
			"NextTransactions": func() error {
				_, err := b.svc.NextTransactions(ctx, id, base+tc.query, absent(sess)...)
				return err
			},
		} {
			err := call()
			require.Error(t, err, "%s %s", name, tc.name)
			assert.ErrorIs(t, err, client.ErrNotSent, "%s %s", name, tc.name)
			assert.ErrorIs(t, err, accounts.ErrInvalidQuery, "%s %s", name, tc.name)
			var ve *client.ValidationError
			if assert.True(t, errors.As(err, &ve), "%s %s: %v", name, tc.name, err) {
				assert.Equal(t, tc.field, ve.Field, "%s %s", name, tc.name)
			}
		}
		assert.Equal(t, before, left(), "%s: nothing of the budget spent", tc.name)
	}

	// The links the bank gives are followed: the account's own
	// transactions link and a next link with limit, offset and dates.
	page, err := b.svc.TransactionsAt(ctx, base+"bookingStatus=both", present(sess)...)
	require.NoError(t, err)
	assert.NotNil(t, page)
	page, err = b.svc.NextTransactions(ctx, id, base+"limit=3&offset=3&dateFrom=2025-01-01&dateTo=2026-12-31&bookingStatus=all", present(sess)...)
	require.NoError(t, err)
	assert.NotNil(t, page)
}

// A next link whose bookingStatus is not one of the interface's values is
// refused before sending, and the refusal does not quote the value: it is
// the bank's text, which may hold an account number or a name, and an
// error is logged. Before, the first 40 bytes of it were in the error.
func TestLinkQueryRefusalQuotesNoBankText(t *testing.T) {
	svc := newMockService(t)
	const iban = "NO8495312776066"
	servePages(t, map[string]iterPage{
		"": {booked: []string{"a"}, self: link(0), next: "/v1/accounts/" + acc1 + "/transactions?bookingStatus=" + iban + "&offset=2"},
	})
	got, errs := collect(svc.TransactionsIter(t.Context(), acc1, &accounts.TransactionQuery{Limit: 2}, psuPresent()...))
	assert.Equal(t, []string{"booked:a"}, texts(got))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], accounts.ErrInvalidQuery)
	assert.NotContains(t, errs[0].Error(), iban)
	assert.Equal(t, 1, calls(), "the link is not sent")
}
