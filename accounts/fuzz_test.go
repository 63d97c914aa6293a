package accounts_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// FuzzTransactionsPageDecoding feeds bank documents to the page decoders
// and the accessors a caller uses: they must never panic, and a decoded
// page keeps its entries' booking status.
func FuzzTransactionsPageDecoding(f *testing.F) {
	for _, name := range []string{"transactions-page1.json", "transactions-page2.json", "transactions-proprietary.json", "card-transactions.json"} {
		f.Add(testdata(f, name))
	}
	f.Add([]byte(`{"transactions":{"booked":[{"additionalInformationProprietary":1,"additionalInformationProprietaryx":null}],"pending":null}}`))
	f.Add([]byte(`{"transactions":{"booked":[{"transactionAmount":{"amount":1e400,"currency":"XXX"},"bookingDate":"2025-13-40"}]}}`))
	f.Add([]byte(`{"transactions":{"pending":"x"},"cardTransactions":{"booked":[{}],"_links":{"next":{"href":7}}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p accounts.TransactionsPage
		if json.Unmarshal(data, &p) == nil {
			_ = p.Next()
			for _, tr := range p.Booked {
				if tr.Status != accounts.BookingBooked {
					t.Fatalf("booked entry with status %q", tr.Status)
				}
				_, _ = tr.Proprietary(1)
				_, _ = json.Marshal(tr)
				_ = tr.TransactionAmount.String()
			}
			for _, tr := range p.Pending {
				if tr.Status != accounts.BookingPending {
					t.Fatalf("pending entry with status %q", tr.Status)
				}
				_, _ = json.Marshal(tr)
			}
		}
		var c accounts.CardTransactionsPage
		if json.Unmarshal(data, &c) == nil {
			_ = c.Next()
			for _, tr := range c.Booked {
				_ = tr.TransactionAmount.String()
			}
		}
		var tr accounts.Transaction
		_ = json.Unmarshal(data, &tr)
	})
}

// fuzzTransport answers every request with a page whose next link is
// next (on the first request) and records the URLs asked for.
type fuzzTransport struct {
	mu   sync.Mutex
	next string
	urls []string
}

func (ft *fuzzTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ft.mu.Lock()
	ft.urls = append(ft.urls, req.URL.String())
	first := len(ft.urls) == 1
	ft.mu.Unlock()
	links := map[string]any{}
	if first {
		links["next"] = map[string]any{"href": ft.next, "verbs": []string{"GET"}}
	}
	body, _ := json.Marshal(map[string]any{"transactions": map[string]any{
		"booked": []map[string]any{{"transactionId": "1", "transactionAmount": map[string]string{"amount": "-1.00", "currency": "NOK"}}},
		"_links": links}})
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
}

// FuzzNextLink gives the iterator and TransactionsPage arbitrary next
// links: they must never panic, and nothing may be sent anywhere but the
// account's transactions on the bank's base URL.
func FuzzNextLink(f *testing.F) {
	for _, s := range []string{
		"/v1/accounts/acc/transactions?offset=3",
		baseURL + "/v1/accounts/acc/transactions?offset=3",
		"https://evil.example/api/v1/accounts/acc/transactions",
		"//evil.example/api/v1/accounts/acc/transactions",
		"/v1/accounts/acc%2Fx/transactions",
		"/v1/accounts/%2e%2e/transactions",
		"/v1/accounts/acc/../../payments/x/transactions",
		"/api/v1/accounts/acc/transactions",
		"https://bank.example:8443/api/v1/accounts/acc/transactions",
		"https://BANK.example/api/v1/accounts/acc/transactions",
		"/v1/accounts/acc/transactions\r\nX: y",
		"%zz", "", "?", "/v1/card-accounts/acc/transactions", "javascript:alert(1)",
	} {
		f.Add(s)
	}
	creds := testtpp.Credentials(f, "Accounts test TPP")
	f.Fuzz(func(t *testing.T, href string) {
		ft := &fuzzTransport{next: href}
		c, err := client.New(baseURL, creds, client.WithHTTPClient(&http.Client{Transport: ft}), client.WithRetryPolicy(client.RetryPolicy{}))
		if err != nil {
			t.Fatal(err)
		}
		svc := newService(t, c)
		for _, err := range svc.TransactionsIter(t.Context(), "acc", nil, psuPresent()...) {
			_ = err
		}
		_, _ = svc.TransactionsAt(t.Context(), href, psuPresent()...)
		_, _ = svc.CardTransactionsAt(t.Context(), href, psuPresent()...)
		ft.mu.Lock()
		defer ft.mu.Unlock()
		for _, raw := range ft.urls {
			u, err := url.Parse(raw)
			if err != nil || u.Scheme != "https" || !strings.EqualFold(u.Host, "bank.example") {
				t.Fatalf("request sent to %q", raw)
			}
			p := u.EscapedPath()
			if !strings.HasPrefix(p, "/api/v1/accounts/") && !strings.HasPrefix(p, "/api/v1/card-accounts/") ||
				!strings.HasSuffix(p, "/transactions") || strings.Count(p, "/") != 5 {
				t.Fatalf("request sent to %q", raw)
			}
		}
	})
}
