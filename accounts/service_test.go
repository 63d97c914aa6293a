package accounts_test

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/money"
)

// Unit tests of request and response mapping against the platform's
// documents (testdata, copies of the platform's answer documents), with
// httpmock on the client's http.Client. They use httpmock's package-wide
// transport and so do not call t.Parallel.

func mustDate(t *testing.T, s string) date.Date {
	t.Helper()
	d, err := date.Parse(s)
	require.NoError(t, err)
	return d
}

func get(href string) client.Link { return client.Link{Href: href, Verbs: []string{"GET"}} }

const (
	acc1 = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	acc2 = "enc!!Rx_pBwAJG07KRcz7N_7lU1fOa2XSzft89z1v2PpaheM="
)

func accountLinks(id string) client.Links {
	return client.Links{
		"self":         get("/v1/accounts/" + id),
		"balances":     get("/v1/accounts/" + id + "/balances"),
		"transactions": get("/v1/accounts/" + id + "/transactions?bookingStatus=both"),
	}
}

func brukskonto() accounts.Account {
	return accounts.Account{ResourceID: acc1, BBAN: "95312776066", IBAN: "NO8495312776066", Currency: "NOK",
		Name: "Brukskonto", Product: "BRUKSKONTO", CashAccountType: accounts.CashAccountCurrent, BIC: "TSTBNO22",
		Links: accountLinks(acc1)}
}

func TestStartConsent(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodPost, "/v1/bank-offered-consents", http.StatusCreated, "bank-offered-consent-201.json", func(req *http.Request) {
		assertSigned(t, req)
		assert.Equal(t, "/api/v1/bank-offered-consents", req.URL.Path)
		assert.Empty(t, req.URL.RawQuery)
		assert.Empty(t, req.Header.Get("Digest"), "no body, no Digest")
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			assert.Empty(t, b)
		}
		assert.Equal(t, sessionID, req.Header.Get("TPP-Session-ID"))
		assert.Equal(t, redirectURI, req.Header.Get("TPP-Redirect-URI"))
	})
	consent, err := svc.StartConsent(t.Context(), client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI))
	require.NoError(t, err)
	assert.Equal(t, "https://psd2.bank.example/tap/9999/?route_secesb_id=1&flow=psd2&state=176def94-aaad-4d77-b15a-4c4f3d3622ec&context=PRIVATE",
		consent.SCARedirect())
	assert.Equal(t, []string{"GET"}, consent.Links["scaRedirect"].Verbs)
	assert.Equal(t, 1, calls())
	assert.Equal(t, map[string]int{"POST " + baseURL + "/v1/bank-offered-consents": 1}, nonZero(httpmock.GetCallCountInfo()),
		"only the bank-offered consent endpoint, never the deprecated /v1/consents")
}

func TestStartConsentWithoutLink(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodPost, baseURL+"/v1/bank-offered-consents", httpmock.NewStringResponder(http.StatusCreated, `{"_links":{}}`))
	consent, err := svc.StartConsent(t.Context(), client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI))
	require.ErrorIs(t, err, accounts.ErrNoSCARedirect)
	assert.Nil(t, consent)
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      *accounts.ListOptions
		wantQuery string
	}{
		{"nil options", nil, ""},
		{"without balance", &accounts.ListOptions{}, ""},
		{"with balance", &accounts.ListOptions{WithBalance: true}, "withBalance=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			respond(t, http.MethodGet, "/v1/accounts", http.StatusOK, "accounts.json", func(req *http.Request) {
				assertSigned(t, req)
				assertPSUHeaders(t, req, true)
				assert.Equal(t, "/api/v1/accounts", req.URL.Path)
				assert.Equal(t, tc.wantQuery, req.URL.RawQuery)
			})
			got, err := svc.List(t.Context(), tc.opts, psuPresent()...)
			require.NoError(t, err)
			want := []accounts.Account{brukskonto(), {ResourceID: acc2, BBAN: "95317621508", IBAN: "NO5795317621508",
				Currency: "NOK", Name: "Høyrentekonto", Product: "SPAREKONTO", CashAccountType: accounts.CashAccountSavings,
				BIC: "TSTBNO22", Links: accountLinks(acc2)}}
			assert.Equal(t, want, got)
			assert.Equal(t, 1, calls())
		})
	}
}

func TestGet(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"wrapped as the platform document", string(testdata(t, "account.json"))},
		{"bare", `{"resourceId":"` + acc1 + `","bban":"95312776066","iban":"NO8495312776066","currency":"NOK","name":"Brukskonto","product":"BRUKSKONTO","cashAccountType":"CACC","bic":"TSTBNO22","_links":{"self":{"href":"/v1/accounts/` + acc1 + `","verbs":["GET"]},"balances":{"href":"/v1/accounts/` + acc1 + `/balances","verbs":["GET"]},"transactions":{"href":"/v1/accounts/` + acc1 + `/transactions?bookingStatus=both","verbs":["GET"]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/accounts/"+acc1, func(req *http.Request) (*http.Response, error) {
				assertSigned(t, req)
				assertPSUHeaders(t, req, true)
				assert.Equal(t, "/api/v1/accounts/"+acc1, req.URL.EscapedPath(), "the id's ! and = are sent as written")
				return httpmock.NewStringResponse(http.StatusOK, tc.body), nil
			})
			got, err := svc.Get(t.Context(), acc1, psuPresent()...)
			require.NoError(t, err)
			want := brukskonto()
			assert.Equal(t, &want, metatest.Strip(got))
		})
	}
}

// An empty id is refused by the client before anything is sent: one
// error matching client.ErrNotSent and client.ErrValidation, whose field
// names the path parameter.
func TestEmptyIDsAreRefusedBeforeSending(t *testing.T) {
	svc := newMockService(t)
	ctx := t.Context()
	check := func(err error, field string) {
		t.Helper()
		assert.ErrorIs(t, err, client.ErrNotSent)
		assert.ErrorIs(t, err, client.ErrValidation)
		var ve *client.ValidationError
		if assert.ErrorAs(t, err, &ve) {
			assert.Equal(t, field, ve.Field)
		}
	}
	_, err := svc.Get(ctx, "", psuPresent()...)
	check(err, "accountId")
	_, err = svc.Balances(ctx, "", psuAbsent()...)
	check(err, "accountId")
	_, err = svc.Transactions(ctx, "", nil, psuPresent()...)
	check(err, "accountId")
	_, err = svc.NextTransactions(ctx, "", "/v1/accounts/a/transactions?offset=1", psuPresent()...)
	check(err, "accountId")
	_, err = svc.CardAccount(ctx, "", psuPresent()...)
	check(err, "cardAccountId")
	_, err = svc.CardBalances(ctx, "", psuPresent()...)
	check(err, "cardAccountId")
	_, err = svc.CardTransactions(ctx, "", nil, psuPresent()...)
	check(err, "cardAccountId")
	_, err = svc.Transactions(ctx, "a1", &accounts.TransactionQuery{BookingStatus: "nope"}, psuPresent()...)
	check(err, "bookingStatus")
	assert.ErrorIs(t, err, accounts.ErrInvalidQuery, "a bad query still matches ErrInvalidQuery")
	_, err = svc.TransactionsAt(ctx, "", psuPresent()...)
	check(err, "href")
	assert.Equal(t, 0, calls())
}

func TestBalances(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/balances", http.StatusOK, "balances.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
		assert.Equal(t, "/api/v1/accounts/"+acc1+"/balances", req.URL.EscapedPath())
	})
	got, err := svc.Balances(t.Context(), acc1, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, &accounts.BalanceReport{
		Account: &accounts.AccountReference{BBAN: "95312776066", IBAN: "NO8495312776066", Currency: "NOK"},
		Balances: []accounts.Balance{
			{BalanceAmount: money.MustParse("15234.75", "NOK"), BalanceType: accounts.BalanceClosingBooked},
			{BalanceAmount: money.MustParse("14890.25", "NOK"), BalanceType: accounts.BalanceExpected},
		},
		Links: client.Links{"self": get("/v1/accounts/" + acc1 + "/balances")},
	}, metatest.Strip(got))
	b, ok := got.Find(accounts.BalanceExpected)
	assert.True(t, ok)
	assert.Equal(t, "14890.25 NOK", b.BalanceAmount.String())
	_, ok = got.Find(accounts.BalanceInterimBooked)
	assert.False(t, ok)
	assert.True(t, accounts.BalanceClosingBooked.Known())
	assert.False(t, accounts.BalanceType("authorised").Known())
}

func cardLinks() client.Links {
	return client.Links{
		"self":         get("/v1/card-accounts/" + cardAccountID),
		"balances":     get("/v1/card-accounts/" + cardAccountID + "/balances"),
		"transactions": get("/v1/card-accounts/" + cardAccountID + "/transactions?bookingStatus=both"),
	}
}

// assertCardFixes checks the card switches of docs/interface.md section 9.
func assertCardFixes(t *testing.T, req *http.Request) {
	t.Helper()
	assert.Equal(t, "amount-as-string,longer-names,cardaccount-switch-originalamount-and-transactionamount",
		req.Header.Get("X-Accept-Fix"))
}

func TestCardAccounts(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/card-accounts", http.StatusOK, "card-accounts.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
		assertCardFixes(t, req)
		assert.Equal(t, "/api/v1/card-accounts", req.URL.Path)
	})
	got, err := svc.CardAccounts(t.Context(), psuPresent()...)
	require.NoError(t, err)
	limit := money.MustParse("50000.00", "NOK")
	assert.Equal(t, []accounts.CardAccount{{
		ResourceID: cardAccountID, MaskedPAN: "552216******4810", Currency: "NOK", Name: "Mastercard Gull",
		Product: "Kredittkort Gull", CreditLimit: &limit,
		Balances: []accounts.Balance{{BalanceAmount: money.MustParse("43125.40", "NOK"), BalanceType: accounts.BalanceForwardAvailable}},
		Links:    cardLinks(),
	}}, got)
	assert.Empty(t, got[0].RelatedAccountID())
}

func TestCardAccountsLongerNames(t *testing.T) {
	// A 70-character name, the length the longer-names switch allows.
	name := "Mastercard Gull Familie og Reise med Forsikring og Bonusprogram Ekstra"
	require.Len(t, []rune(name), 70)
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/card-accounts",
		httpmock.NewStringResponder(http.StatusOK, `{"cardAccounts":[{"resourceId":"c1","maskedPan":"492501******1234","name":"`+name+`","relatedAccount":"enc!!rel="}]}`))
	got, err := svc.CardAccounts(t.Context(), psuPresent()...)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, name, got[0].Name)
	assert.Equal(t, "enc!!rel=", got[0].RelatedAccountID())
}

func TestCardAccountsEmptyAndUnsupported(t *testing.T) {
	t.Run("a PSU without cards", func(t *testing.T) {
		svc := newMockService(t)
		httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/card-accounts", httpmock.NewStringResponder(http.StatusOK, `{"cardAccounts":[]}`))
		got, err := svc.CardAccounts(t.Context(), psuPresent()...)
		require.NoError(t, err)
		assert.NotNil(t, got)
		assert.Empty(t, got)
	})
	t.Run("a bank without card support", func(t *testing.T) {
		svc := newMockService(t)
		httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/card-accounts", httpmock.NewStringResponder(http.StatusNotFound,
			`{"tppMessages":[{"category":"ERROR","code":"NOT_FOUND","text":"Not found"}]}`))
		got, err := svc.CardAccounts(t.Context(), psuPresent()...)
		require.Error(t, err)
		assert.Nil(t, got)
		assert.ErrorIs(t, err, accounts.ErrCardAccountsNotSupported)
		assert.ErrorIs(t, err, client.ErrNotFound)
		var ne *accounts.CardAccountsNotSupportedError
		require.ErrorAs(t, err, &ne)
		assert.Equal(t, http.StatusNotFound, ne.Err.StatusCode)
		assert.Equal(t, "accounts.CardAccounts", ne.Err.Operation)
		assert.Contains(t, err.Error(), "does not offer card accounts")
	})
}

func TestCardAccount(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/card-accounts/"+cardAccountID, func(req *http.Request) (*http.Response, error) {
		assertCardFixes(t, req)
		return httpmock.NewStringResponse(http.StatusOK, `{"cardAccount":{"resourceId":"`+cardAccountID+`","maskedPan":"552216******4810","currency":"NOK","name":"Mastercard Gull"}}`), nil
	})
	got, err := svc.CardAccount(t.Context(), cardAccountID, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, &accounts.CardAccount{ResourceID: cardAccountID, MaskedPAN: "552216******4810", Currency: "NOK", Name: "Mastercard Gull"}, metatest.Strip(got))
}

func TestCardBalances(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/card-accounts/"+cardAccountID+"/balances", http.StatusOK, "card-account-balances.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
		assertCardFixes(t, req)
	})
	got, err := svc.CardBalances(t.Context(), cardAccountID, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, &accounts.BalanceReport{
		CardAccount: &accounts.AccountReference{MaskedPAN: "552216******4810"},
		Balances: []accounts.Balance{
			{BalanceAmount: money.MustParse("43125.40", "NOK"), BalanceType: accounts.BalanceForwardAvailable},
			{BalanceAmount: money.MustParse("-6874.60", "NOK"), BalanceType: accounts.BalanceInterimBooked},
		},
		Links: client.Links{"self": get("/v1/card-accounts/" + cardAccountID + "/balances")},
	}, metatest.Strip(got))
}

func TestCardTransactions(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/card-accounts/"+cardAccountID+"/transactions", http.StatusOK, "card-transactions.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
		assertCardFixes(t, req)
		assert.Equal(t, url.Values{"bookingStatus": {"both"}, "dateFrom": {"2025-02-01"}, "dateTo": {"2025-03-14"}, "limit": {"499"}},
			req.URL.Query())
	})
	q := &accounts.TransactionQuery{DateFrom: mustDate(t, "2025-02-01"), DateTo: mustDate(t, "2025-03-14"), Limit: 499}
	got, err := svc.CardTransactions(t.Context(), cardAccountID, q, psuPresent()...)
	require.NoError(t, err)
	f, tr := false, true
	eur := money.MustParse("-39.90", "EUR")
	nok899 := money.MustParse("-899.00", "NOK")
	nok215 := money.MustParse("-215.00", "NOK")
	assert.Equal(t, accounts.AccountReference{MaskedPAN: "552216******4810"}, got.CardAccount)
	// With the cardaccount-switch switch, transactionAmount is what the
	// card account is billed (NOK) and originalAmount the merchant's.
	assert.Equal(t, []accounts.CardTransaction{
		{Status: accounts.BookingBooked, CardTransactionID: "832319375079", BookingDate: mustDate(t, "2025-03-05"),
			TransactionDate: mustDate(t, "2025-03-03"), TransactionAmount: money.MustParse("-452.30", "NOK"),
			OriginalAmount: &eur, Invoiced: &f, TransactionDetails: "CAFE EXEMPLE PARIS FR"},
		{Status: accounts.BookingBooked, CardTransactionID: "763633950432", BookingDate: mustDate(t, "2025-02-20"),
			TransactionDate: mustDate(t, "2025-02-19"), TransactionAmount: money.MustParse("-899.00", "NOK"),
			OriginalAmount: &nok899, Invoiced: &tr, TransactionDetails: "SPORT TESTBUTIKKEN TESTBY"},
	}, got.Booked)
	assert.Equal(t, []accounts.CardTransaction{
		{Status: accounts.BookingPending, CardTransactionID: "674912199995", TransactionDate: mustDate(t, "2025-03-13"),
			TransactionAmount: nok215, OriginalAmount: &nok215, Invoiced: &f, TransactionDetails: "KIOSKEN TESTBY STASJON"},
	}, got.Pending)
	assert.Equal(t, client.Links{"self": get("/v1/card-accounts/" + cardAccountID +
		"/transactions?limit=499&offset=0&dateFrom=2025-02-01&dateTo=2025-03-14&bookingStatus=both")}, got.Links)
	assert.Empty(t, got.Next())
}

func TestAgreements(t *testing.T) {
	for _, tc := range []struct {
		name, corporateID string
	}{{"without corporate id", ""}, {"with corporate id", "f062942c-9ce8-4742-b0ef-39f083f1738b"}} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			respond(t, http.MethodGet, "/v1/agreements", http.StatusOK, "agreements.json", func(req *http.Request) {
				assertSigned(t, req)
				assert.Equal(t, "/api/v1/agreements", req.URL.Path)
				assert.Equal(t, psuID, req.Header.Get("PSU-ID"))
				assert.Equal(t, tc.corporateID, req.Header.Get("PSU-Corporate-ID"))
			})
			got, err := svc.Agreements(t.Context(), client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
				client.WithPSU(client.PSU{ID: psuID, CorporateID: tc.corporateID, IPAddress: psuIP}))
			require.NoError(t, err)
			assert.Equal(t, []accounts.Agreement{
				{ID: "f062942c-9ce8-4742-b0ef-39f083f1738b", Name: "Fjordlys Bakeri AS"},
				{ID: "6376a34c-9693-465e-a0d8-6c6bdd775263", Name: "Testfirma Nord AS"},
			}, got)
		})
	}
	t.Run("bare array", func(t *testing.T) {
		svc := newMockService(t)
		httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/agreements",
			httpmock.NewStringResponder(http.StatusOK, `[{"id":"a1","name":"A","engagements":["e1"]}]`))
		got, err := svc.Agreements(t.Context(), psuPresent()...)
		require.NoError(t, err)
		assert.Equal(t, []accounts.Agreement{{ID: "a1", Name: "A", Engagements: []string{"e1"}}}, got)
	})
}

func TestTransactionQuery(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       *accounts.TransactionQuery
		want    url.Values
		wantErr bool
	}{
		{"nil is both", nil, url.Values{"bookingStatus": {"both"}}, false},
		{"zero is both", &accounts.TransactionQuery{}, url.Values{"bookingStatus": {"both"}}, false},
		{"booked", &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, url.Values{"bookingStatus": {"booked"}}, false},
		{"pending", &accounts.TransactionQuery{BookingStatus: accounts.BookingPending}, url.Values{"bookingStatus": {"pending"}}, false},
		{"all", &accounts.TransactionQuery{BookingStatus: accounts.BookingAll}, url.Values{"bookingStatus": {"all"}}, false},
		{"every field", &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: date.Date{Year: 2025, Month: 1, Day: 1},
			DateTo: date.Date{Year: 2025, Month: 3, Day: 31}, Limit: 3, Offset: 6},
			url.Values{"bookingStatus": {"both"}, "dateFrom": {"2025-01-01"}, "dateTo": {"2025-03-31"}, "limit": {"3"}, "offset": {"6"}}, false},
		{"unknown booking status", &accounts.TransactionQuery{BookingStatus: "BOOKED"}, nil, true},
		{"dateTo before dateFrom", &accounts.TransactionQuery{DateFrom: date.Date{Year: 2025, Month: 3, Day: 2},
			DateTo: date.Date{Year: 2025, Month: 3, Day: 1}}, nil, true},
		{"not a calendar date", &accounts.TransactionQuery{DateFrom: date.Date{Year: 2025, Month: 2, Day: 30}}, nil, true},
		{"negative limit", &accounts.TransactionQuery{Limit: -1}, nil, true},
		{"negative offset", &accounts.TransactionQuery{Offset: -1}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/accounts/"+acc1+"/transactions", func(req *http.Request) (*http.Response, error) {
				assert.Equal(t, tc.want, req.URL.Query())
				return httpmock.NewBytesResponse(http.StatusOK, testdata(t, "transactions-page2.json")), nil
			})
			_, err := svc.Transactions(t.Context(), acc1, tc.q, psuPresent()...)
			if tc.wantErr {
				assert.ErrorIs(t, err, accounts.ErrInvalidQuery)
				assert.Equal(t, 0, calls(), "refused before sending")
				// The refusal names the field that is wrong.
				wantField := map[string]string{"unknown booking status": "bookingStatus", "dateTo before dateFrom": "dateTo",
					"not a calendar date": "dateFrom", "negative limit": "limit", "negative offset": "offset"}[tc.name]
				var ve *client.ValidationError
				if assert.ErrorAs(t, err, &ve) {
					assert.Equal(t, wantField, ve.Field)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 1, calls())
		})
	}
}

const (
	page1Self = "/v1/accounts/" + acc1 + "/transactions?limit=3&offset=0&dateFrom=2025-01-01&dateTo=2025-03-31&bookingStatus=both"
	page1Next = "/v1/accounts/" + acc1 + "/transactions?limit=3&offset=3&dateFrom=2025-01-01&dateTo=2025-03-31&bookingStatus=both"
)

func ownAccount() *accounts.AccountReference {
	return &accounts.AccountReference{BBAN: "95312776066", IBAN: "NO8495312776066"}
}

func page1Booked(t *testing.T) []accounts.Transaction {
	return []accounts.Transaction{
		{Status: accounts.BookingBooked, TransactionID: "1463038794551145", BookingDate: mustDate(t, "2025-03-12"), ValueDate: mustDate(t, "2025-03-12"),
			TransactionAmount: money.MustParse("-389.40", "NOK"), DebtorAccount: ownAccount(),
			RemittanceInformationUnstructured:      "MATBUTIKKEN STORGATA 12 TESTBY",
			RemittanceInformationUnstructuredArray: []string{"MATBUTIKKEN STORGATA 12 TESTBY"}, ProprietaryBankTransactionCode: "R_710"},
		{Status: accounts.BookingBooked, TransactionID: "7497180943866773", BookingDate: mustDate(t, "2025-03-10"), ValueDate: mustDate(t, "2025-03-10"),
			TransactionAmount: money.MustParse("-1249.00", "NOK"), CreditorName: "Eksempel Kraft AS",
			CreditorAccount: &accounts.AccountReference{BBAN: "81127378347"}, DebtorAccount: ownAccount(),
			RemittanceInformationUnstructured:      "Strøm februar",
			RemittanceInformationUnstructuredArray: []string{"Strøm februar"}, ProprietaryBankTransactionCode: "R_203"},
		{Status: accounts.BookingBooked, TransactionID: "9963797888757585", BookingDate: mustDate(t, "2025-03-07"), ValueDate: mustDate(t, "2025-03-07"),
			TransactionAmount: money.MustParse("32500.00", "NOK"), DebtorName: "Testfirma Nord AS",
			DebtorAccount:                          &accounts.AccountReference{BBAN: "18037234555"},
			RemittanceInformationUnstructured:      "Lønn mars",
			RemittanceInformationUnstructuredArray: []string{"Lønn mars"}, ProprietaryBankTransactionCode: "R_230"},
	}
}

func page1Pending(t *testing.T) []accounts.Transaction {
	return []accounts.Transaction{
		{Status: accounts.BookingPending, BookingDate: mustDate(t, "2025-03-14"), TransactionAmount: money.MustParse("-129.00", "NOK"),
			DebtorAccount: ownAccount(), RemittanceInformationUnstructured: "Vipps*Kaffebaren Testby",
			RemittanceInformationUnstructuredArray: []string{"Vipps*Kaffebaren Testby"}, ProprietaryBankTransactionCode: "R_946"},
		{Status: accounts.BookingPending, BookingDate: mustDate(t, "2025-03-13"), TransactionAmount: money.MustParse("-54.90", "NOK"),
			DebtorAccount: ownAccount(), RemittanceInformationUnstructured: "DAGLIGVARE 1000 TESTBY",
			RemittanceInformationUnstructuredArray: []string{"DAGLIGVARE 1000 TESTBY"}, ProprietaryBankTransactionCode: "R_943"},
	}
}

func page2Booked(t *testing.T) []accounts.Transaction {
	return []accounts.Transaction{
		{Status: accounts.BookingBooked, TransactionID: "5477340649276395", BookingDate: mustDate(t, "2025-03-03"), ValueDate: mustDate(t, "2025-03-03"),
			TransactionAmount: money.MustParse("-8750.00", "NOK"), CreditorName: "Utleier Testesen",
			CreditorAccount: &accounts.AccountReference{BBAN: "98176002468"}, DebtorAccount: ownAccount(),
			RemittanceInformationUnstructured:      "Husleie mars",
			RemittanceInformationUnstructuredArray: []string{"Husleie mars"}, ProprietaryBankTransactionCode: "R_203"},
		{Status: accounts.BookingBooked, TransactionID: "0529816286707200", BookingDate: mustDate(t, "2025-02-28"), ValueDate: mustDate(t, "2025-02-28"),
			TransactionAmount: money.MustParse("-45.00", "NOK"), DebtorAccount: ownAccount(),
			RemittanceInformationUnstructured:      "Kontohold februar",
			RemittanceInformationUnstructuredArray: []string{"Kontohold februar"}, ProprietaryBankTransactionCode: "R_760"},
	}
}

func TestTransactionsPages(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/transactions", http.StatusOK, "transactions-page1.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
		assert.Equal(t, "/api/v1/accounts/"+acc1+"/transactions", req.URL.EscapedPath())
		assert.Equal(t, url.Values{"bookingStatus": {"both"}, "dateFrom": {"2025-01-01"}, "dateTo": {"2025-03-31"}, "limit": {"3"}}, req.URL.Query())
		assert.Equal(t, "", req.Header.Get("X-Accept-Fix")[len("amount-as-string"):], "no card switches on account calls")
	})
	q := &accounts.TransactionQuery{DateFrom: mustDate(t, "2025-01-01"), DateTo: mustDate(t, "2025-03-31"), Limit: 3}
	p1, err := svc.Transactions(t.Context(), acc1, q, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, accounts.AccountReference{BBAN: "95312776066", IBAN: "NO8495312776066"}, p1.Account)
	assert.Equal(t, page1Booked(t), p1.Booked)
	assert.Equal(t, page1Pending(t), p1.Pending)
	assert.Equal(t, client.Links{"self": get(page1Self), "next": get(page1Next)}, p1.Links)
	assert.Equal(t, page1Next, p1.Next())
	for _, e := range p1.Pending {
		assert.Empty(t, e.TransactionID, "pending entries have no stable id")
		assert.True(t, e.ValueDate.IsZero())
	}

	// The stored next link, read later.
	httpmock.RegisterResponderWithQuery(http.MethodGet, baseURL+"/v1/accounts/"+acc1+"/transactions",
		"limit=3&offset=3&dateFrom=2025-01-01&dateTo=2025-03-31&bookingStatus=both", func(req *http.Request) (*http.Response, error) {
			assertSigned(t, req)
			assertPSUHeaders(t, req, true)
			assert.Equal(t, "/api/v1/accounts/"+acc1+"/transactions", req.URL.EscapedPath())
			return httpmock.NewBytesResponse(http.StatusOK, testdata(t, "transactions-page2.json")), nil
		})
	p2, err := svc.TransactionsAt(t.Context(), p1.Next(), psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, page2Booked(t), p2.Booked)
	assert.Empty(t, p2.Pending)
	assert.Equal(t, client.Links{"self": get(page1Next)}, p2.Links)
	assert.Empty(t, p2.Next())
	assert.Equal(t, 2, calls())
}

// A link refused before sending reads like every other refusal: one
// *client.NotSentError at the top, matching client.ErrNotSent and
// client.ErrValidation, whose *client.ValidationError names "href",
// whether the call's declaration, the client (another host) or the
// budget hook reading the resolved path (another account, another
// resource) found it.
func TestTransactionsPageRefusesOtherLinks(t *testing.T) {
	for _, tc := range []struct {
		name, href string
		foreign    bool
	}{
		{"another host", "https://evil.example/api/v1/accounts/a/transactions?offset=3", true},
		{"another scheme", "http://bank.example/api/v1/accounts/a/transactions", true},
		{"outside the base path", "https://bank.example/other/v1/accounts/a/transactions", false},
		{"not a transactions link", "/v1/accounts/a/balances", false},
		{"a payment", "/v1/payments/norwegian-domestic-credit-transfers/x", false},
		{"card link for an account", "/v1/card-accounts/a/transactions", false},
		{"nested path", "/v1/accounts/a/b/transactions", false},
		{"dot segment", "/v1/accounts/../transactions", false},
		{"empty", "", false},
		{"fragment", "/v1/accounts/a/transactions#x", false},
		{"user info", "https://u:p@bank.example/api/v1/accounts/a/transactions", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			_, err := svc.TransactionsAt(t.Context(), tc.href, psuPresent()...)
			require.ErrorIs(t, err, accounts.ErrUnexpectedLink)
			assert.Equal(t, tc.foreign, errors.Is(err, client.ErrForeignHost))
			var ns *client.NotSentError
			require.True(t, errors.As(err, &ns), "a *client.NotSentError: %T", err)
			assert.Same(t, error(ns), err, "the NotSentError is the error itself, not wrapped")
			assert.ErrorIs(t, err, client.ErrValidation)
			var ve *client.ValidationError
			if assert.ErrorAs(t, err, &ve) {
				assert.Equal(t, "href", ve.Field)
			}
			for _, ro := range [][]client.RequestOption{psuAbsent(), psuPresent()} {
				_, err = svc.NextTransactions(t.Context(), "a", tc.href, ro...)
				assert.ErrorIs(t, err, client.ErrNotSent)
				assert.ErrorIs(t, err, client.ErrValidation)
				assert.ErrorIs(t, err, accounts.ErrUnexpectedLink)
			}
			assert.Equal(t, 0, calls(), "nothing sent")
		})
	}
}
