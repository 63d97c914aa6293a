package accounts_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
)

// collect runs an iterator to its end and returns the entries and the
// errors it yielded.
func collect[T any](seq func(func(*T, error) bool)) ([]T, []error) {
	var out []T
	var errs []error
	for e, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, *e)
	}
	return out, errs
}

func TestTransactionsIterPlatformPages(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/transactions", http.StatusOK, "transactions-page1.json", nil)
	httpmock.RegisterResponderWithQuery(http.MethodGet, baseURL+"/v1/accounts/"+acc1+"/transactions",
		"limit=3&offset=3&dateFrom=2025-01-01&dateTo=2025-03-31&bookingStatus=both",
		httpmock.NewBytesResponder(http.StatusOK, testdata(t, "transactions-page2.json")))

	seq := svc.TransactionsIter(t.Context(), acc1, &accounts.TransactionQuery{Limit: 3}, psuPresent()...)
	assert.Equal(t, 0, calls(), "lazy: nothing is sent before the loop starts")
	got, errs := collect(seq)
	assert.Empty(t, errs)
	want := append(append(page1Booked(t), page1Pending(t)...), page2Booked(t)...)
	assert.Equal(t, want, got, "page 1 booked, page 1 pending, page 2 booked")
	assert.Equal(t, 2, calls())
}

// iterPage is one page the iterator tests serve.
type iterPage struct {
	booked, pending []string // remittance texts
	self, next      string
}

func (p iterPage) json() string {
	entries := func(texts []string, booked bool) []map[string]any {
		out := []map[string]any{}
		for i, s := range texts {
			e := map[string]any{"transactionAmount": map[string]string{"amount": fmt.Sprintf("-%d.00", i+1), "currency": "NOK"},
				"remittanceInformationUnstructured": s}
			if booked {
				e["transactionId"] = "id-" + s
				e["bookingDate"] = "2025-03-01"
			}
			out = append(out, e)
		}
		return out
	}
	links := map[string]any{}
	if p.self != "" {
		links["self"] = map[string]any{"href": p.self, "verbs": []string{"GET"}}
	}
	if p.next != "" {
		links["next"] = map[string]any{"href": p.next, "verbs": []string{"GET"}}
	}
	b, _ := json.Marshal(map[string]any{"account": map[string]string{"bban": "95312776066"},
		"transactions": map[string]any{"booked": entries(p.booked, true), "pending": entries(p.pending, false), "_links": links}})
	return string(b)
}

func link(offset int) string {
	return fmt.Sprintf("/v1/accounts/%s/transactions?bookingStatus=both&limit=2&offset=%d", acc1, offset)
}

// servePages answers the first request (no offset) with pages[0] and a
// request with offset=N with the page whose self is link(N).
func servePages(t *testing.T, pages map[string]iterPage) {
	t.Helper()
	httpmock.RegisterResponder(http.MethodGet, "=~^"+strings.ReplaceAll(baseURL, ".", `\.`)+"/",
		func(req *http.Request) (*http.Response, error) {
			key := req.URL.Query().Get("offset")
			if !strings.HasPrefix(req.URL.Path, "/api/v1/accounts/"+acc1+"/transactions") {
				key = "path:" + req.URL.Path
			}
			p, ok := pages[key]
			if !ok {
				return httpmock.NewStringResponse(http.StatusForbidden,
					`{"tppMessages":[{"category":"ERROR","code":"CONSENT_UNKNOWN","text":"revoked"}]}`), nil
			}
			return httpmock.NewStringResponse(http.StatusOK, p.json()), nil
		})
}

func texts(ts []accounts.Transaction) []string {
	var out []string
	for _, tr := range ts {
		out = append(out, string(tr.Status)+":"+tr.RemittanceInformationUnstructured)
	}
	return out
}

func TestTransactionsIterFollowing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pages     map[string]iterPage
		want      []string
		wantCalls int
		wantErr   error
	}{
		{
			name: "three pages",
			pages: map[string]iterPage{
				"":  {booked: []string{"a", "b"}, pending: []string{"p"}, self: link(0), next: link(2)},
				"2": {booked: []string{"c", "d"}, self: link(2), next: link(4)},
				"4": {booked: []string{"e"}, self: link(4)},
			},
			want:      []string{"booked:a", "booked:b", "pending:p", "booked:c", "booked:d", "booked:e"},
			wantCalls: 3,
		},
		{
			name: "the repeated pending list of the known issue is yielded once",
			pages: map[string]iterPage{
				"":  {booked: []string{"a", "b"}, pending: []string{"p", "q"}, self: link(0), next: link(2)},
				"2": {booked: []string{"c"}, pending: []string{"p", "q"}, self: link(2)},
			},
			want:      []string{"booked:a", "booked:b", "pending:p", "pending:q", "booked:c"},
			wantCalls: 2,
		},
		{
			name: "a next link seen before stops the loop",
			pages: map[string]iterPage{
				"":  {booked: []string{"a"}, self: link(0), next: link(2)},
				"2": {booked: []string{"b"}, self: link(2), next: link(0)},
			},
			want:      []string{"booked:a", "booked:b"},
			wantCalls: 2,
		},
		{
			name: "a next link equal to self stops the loop",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, self: link(0), next: link(0)},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
		},
		{
			// The same page spelt otherwise (absolute, its query in
			// another order) is the page already read: before, it was read
			// again, its entries yielded twice and a call of the
			// account's 4 a day without the PSU spent on it.
			name: "a next link back to a page seen, spelt otherwise, stops the loop",
			pages: map[string]iterPage{
				"":  {booked: []string{"a"}, self: link(0), next: link(2)},
				"0": {booked: []string{"a"}, self: link(0), next: link(2)},
				"2": {booked: []string{"b"}, self: link(2), next: baseURL + "/v1/accounts/" + acc1 + "/transactions?offset=0&limit=2&bookingStatus=both"},
			},
			want:      []string{"booked:a", "booked:b"},
			wantCalls: 2,
		},
		{
			name: "a next link to self, spelt otherwise, stops the loop",
			pages: map[string]iterPage{
				"":  {booked: []string{"a"}, self: link(0), next: "/v1/accounts/" + acc1 + "/transactions?limit=2&offset=0&bookingStatus=both"},
				"0": {booked: []string{"a"}, self: link(0), next: link(0)},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
		},
		{
			// A page need not carry a self link: a next link back to the
			// first page's call, before, had it read again.
			name: "a next link back to the first call, without a self link, stops the loop",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, next: "/v1/accounts/" + acc1 + "/transactions?limit=2&bookingStatus=both"},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
		},
		{
			name: "a next link to another host is not followed",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, self: link(0), next: "https://evil.example/api" + link(2)},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
			wantErr:   client.ErrForeignHost,
		},
		{
			name: "an absolute next link on the bank's host is followed",
			pages: map[string]iterPage{
				"":  {booked: []string{"a"}, self: link(0), next: baseURL + link(2)},
				"2": {booked: []string{"b"}, self: link(2)},
			},
			want:      []string{"booked:a", "booked:b"},
			wantCalls: 2,
		},
		{
			name: "a next link of another account is not followed",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, self: link(0), next: "/v1/accounts/" + acc2 + "/transactions?offset=2"},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
			wantErr:   accounts.ErrUnexpectedLink,
		},
		{
			name: "a next link elsewhere on the bank is not followed",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, self: link(0), next: "/v1/payments/sepa-credit-transfers/x"},
			},
			want:      []string{"booked:a"},
			wantCalls: 1,
			wantErr:   accounts.ErrUnexpectedLink,
		},
		{
			name: "an error on a later page is yielded once and ends the loop",
			pages: map[string]iterPage{
				"": {booked: []string{"a"}, self: link(0), next: link(2)},
			},
			want:      []string{"booked:a"},
			wantCalls: 2,
			wantErr:   client.ErrConsentUnknown,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			servePages(t, tc.pages)
			got, errs := collect(svc.TransactionsIter(t.Context(), acc1, &accounts.TransactionQuery{Limit: 2}, psuPresent()...))
			assert.Equal(t, tc.want, texts(got))
			if tc.wantErr == nil {
				assert.Empty(t, errs)
			} else if assert.Len(t, errs, 1) {
				assert.ErrorIs(t, errs[0], tc.wantErr)
			}
			assert.Equal(t, tc.wantCalls, calls())
		})
	}
}

func TestTransactionsIterBreakStopsFetching(t *testing.T) {
	svc := newMockService(t)
	servePages(t, map[string]iterPage{
		"":  {booked: []string{"a", "b"}, self: link(0), next: link(2)},
		"2": {booked: []string{"c"}, self: link(2)},
	})
	n := 0
	for tr, err := range svc.TransactionsIter(t.Context(), acc1, nil, psuPresent()...) {
		require.NoError(t, err)
		assert.Equal(t, "a", tr.RemittanceInformationUnstructured)
		n++
		break
	}
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, calls(), "the second page is never read")
}

func TestTransactionsIterFirstPageError(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/transactions", http.StatusUnauthorized, "error-401-sca-redirect.json", nil)
	got, errs := collect(svc.TransactionsIter(t.Context(), acc1, nil, psuPresent()...))
	assert.Empty(t, got)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], client.ErrSCARequired)
}

func TestCardTransactionsIter(t *testing.T) {
	svc := newMockService(t)
	cardPage := func(details, self, next string) string {
		links := `"self":{"href":"` + self + `","verbs":["GET"]}`
		if next != "" {
			links += `,"next":{"href":"` + next + `","verbs":["GET"]}`
		}
		return `{"cardAccount":{"maskedPan":"552216******4810"},"cardTransactions":{"booked":[{"cardTransactionId":"` + details +
			`","transactionAmount":{"amount":"-1.00","currency":"NOK"},"transactionDetails":"` + details + `"}],"pending":[],"_links":{` + links + `}}}`
	}
	base := "/v1/card-accounts/" + cardAccountID + "/transactions"
	httpmock.RegisterResponder(http.MethodGet, baseURL+base, func(req *http.Request) (*http.Response, error) {
		assertCardFixes(t, req)
		switch req.URL.Query().Get("offset") {
		case "":
			return httpmock.NewStringResponse(http.StatusOK, cardPage("one", base+"?offset=0", base+"?offset=1")), nil
		case "1":
			return httpmock.NewStringResponse(http.StatusOK, cardPage("two", base+"?offset=1", "/v1/accounts/"+acc1+"/transactions?offset=2")), nil
		}
		return httpmock.NewStringResponse(http.StatusNotFound, `{}`), nil
	})
	var details []string
	var errs []error
	for tr, err := range svc.CardTransactionsIter(t.Context(), cardAccountID, nil, psuPresent()...) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		assert.Equal(t, accounts.BookingBooked, tr.Status)
		assert.True(t, money.MustParse("-1", "NOK").Equal(tr.TransactionAmount))
		details = append(details, tr.TransactionDetails)
	}
	assert.Equal(t, []string{"one", "two"}, details)
	require.Len(t, errs, 1, "an account link in a card account's pages is refused")
	assert.ErrorIs(t, errs[0], accounts.ErrUnexpectedLink)
	assert.Equal(t, 2, calls())
}

func TestTransactionsIterWithoutThePSUStopsAtTheBudget(t *testing.T) {
	svc := newMockService(t)
	pages := map[string]iterPage{}
	for i := range 6 {
		key := fmt.Sprint(i)
		if i == 0 {
			key = ""
		}
		p := iterPage{booked: []string{fmt.Sprint("e", i)}, self: link(i)}
		if i < 5 {
			p.next = link(i + 1)
		}
		pages[key] = p
	}
	servePages(t, pages)
	got, errs := collect(svc.TransactionsIter(t.Context(), acc1, nil, psuAbsent()...))
	assert.Equal(t, []string{"booked:e0", "booked:e1", "booked:e2", "booked:e3"}, texts(got))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], budget.ErrExhausted)
	assert.Equal(t, 4, calls(), "every page counts; the fifth is not sent")

	// With the PSU present the whole history is read.
	got, errs = collect(svc.TransactionsIter(t.Context(), acc1, nil, psuPresent()...))
	assert.Empty(t, errs)
	assert.Len(t, got, 6)
}
