package sandbox

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/signing"
)

const baseURL = "https://psd2.bank.example/api"

// seen is one request as the mock bank received it.
type seen struct {
	method, path, query string
	header              http.Header
	body                string
}

// mockBank returns a Service talking to an httpmock transport that answers
// every request with status and body and records it.
func mockBank(t *testing.T, status int, body string) (*Service, *httpmock.MockTransport, *[]seen) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	var (
		mu   sync.Mutex
		reqs []seen
	)
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		var b []byte
		if r.Body != nil {
			b, _ = io.ReadAll(r.Body)
		}
		mu.Lock()
		reqs = append(reqs, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(b)})
		mu.Unlock()
		if status == http.StatusNoContent {
			return httpmock.NewStringResponse(status, ""), nil
		}
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	c, err := client.New(baseURL, testtpp.Credentials(t, "Sandbox test TPP"), client.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	svc, err := New(c)
	require.NoError(t, err)
	return svc, mt, &reqs
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return string(b)
}

func TestCustomersDecodesPlatformDocument(t *testing.T) {
	t.Parallel()
	doc := readTestdata(t, "sandbox-customers.json")
	tests := []struct {
		name  string
		q     *CustomersQuery
		query string
	}{
		{"no query", nil, ""},
		{"with both", &CustomersQuery{WithAccounts: true, WithAgreements: true}, "withAccounts=true&withAgreements=true"},
		{"accounts only", &CustomersQuery{WithAccounts: true}, "withAccounts=true&withAgreements=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, _, reqs := mockBank(t, http.StatusOK, doc)
			got, err := svc.Customers(t.Context(), tt.q)
			require.NoError(t, err)
			require.Len(t, *reqs, 1)
			r := (*reqs)[0]
			assert.Equal(t, http.MethodGet, r.method)
			assert.Equal(t, "/api/v1/sandbox/customers", r.path)
			assert.Equal(t, tt.query, r.query)
			assert.Empty(t, r.body)
			assert.NotEmpty(t, r.header.Get("Signature"))
			assert.NotEmpty(t, r.header.Get("X-Request-ID"))
			assert.Empty(t, r.header.Get("PSU-ID"), "mock-data calls carry no PSU")

			require.Len(t, got, 2)
			kari := got[0]
			assert.Equal(t, "15867512345", kari.CustomerNumber)
			assert.Equal(t, client.Private, kari.CustomerType)
			assert.Equal(t, "Kari Testperson", kari.CustomerName)
			assert.True(t, strings.HasPrefix(kari.CustomerID, "enc!!"))
			require.Len(t, kari.Agreements, 1)
			assert.Equal(t, "Privatavtale", kari.Agreements[0].Name)
			assert.Len(t, kari.Agreements[0].Engagements, 2)
			assert.Equal(t, []string{"GET", "POST"}, kari.Agreements[0].Links["engagements"].Verbs)
			assert.Len(t, kari.Accounts, 2)
			assert.Len(t, kari.CardAccounts, 1)
			assert.Equal(t, "/v1/sandbox/customers/"+kari.CustomerID, kari.Links.Href(client.LinkSelf))
			assert.Equal(t, client.Corporate, got[1].CustomerType)
			assert.Equal(t, "912345688", got[1].CustomerNumber)
		})
	}
}

func firstCustomer(t *testing.T) string {
	t.Helper()
	var all []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(readTestdata(t, "sandbox-customers.json")), &all))
	return string(all[0])
}

// TestRequests checks the exact method, path and body of every mock-data
// operation.
func TestRequests(t *testing.T) {
	t.Parallel()
	const id = "enc!!4jy8kfx-uYaUUxyNR7El1v62oALaC-jW7CQjPy6eiLc="
	customer := firstCustomer(t)
	tests := []struct {
		name     string
		status   int
		answer   string
		call     func(*Service, *testing.T) error
		method   string
		path     string
		wantBody string // JSON, compared semantically; "" = no body
	}{
		{
			name: "initialize", status: 200, answer: "[" + customer + "]",
			call:   func(s *Service, t *testing.T) error { return s.Initialize(t.Context()) },
			method: "POST", path: "/api/v1/sandbox/initialize",
		},
		{
			name: "create customer", status: 201, answer: customer,
			call: func(s *Service, t *testing.T) error {
				c, err := s.CreateCustomer(t.Context(), &NewCustomer{CustomerNumber: "15867512345", CustomerType: client.Private, CustomerName: "Kari Testperson"})
				if err == nil {
					assert.Equal(t, "Kari Testperson", c.CustomerName)
					assert.Len(t, c.Accounts, 2)
				}
				return err
			},
			method: "POST", path: "/api/v1/sandbox/customers",
			wantBody: `{"customerNumber":"15867512345","customerType":"PRIVATE","customerName":"Kari Testperson"}`,
		},
		{
			name: "get customer", status: 200, answer: customer,
			call: func(s *Service, t *testing.T) error {
				c, err := s.Customer(t.Context(), "enc!!6vRWYM7ZfFVxY-F_wUCLdC_AzLSr09XDo5OJUxC0bfNgJsPucJo3M8FH6xHkmwYH")
				if err == nil {
					assert.Equal(t, "15867512345", c.CustomerNumber)
				}
				return err
			},
			method: "GET", path: "/api/v1/sandbox/customers/enc!!6vRWYM7ZfFVxY-F_wUCLdC_AzLSr09XDo5OJUxC0bfNgJsPucJo3M8FH6xHkmwYH",
		},
		{
			name: "delete customer", status: 204,
			call: func(s *Service, t *testing.T) error {
				return s.DeleteCustomer(t.Context(), "enc!!6vRWYM7ZfFVxY-F_wUCLdC_AzLSr09XDo5OJUxC0bfNgJsPucJo3M8FH6xHkmwYH")
			},
			method: "DELETE", path: "/api/v1/sandbox/customers/enc!!6vRWYM7ZfFVxY-F_wUCLdC_AzLSr09XDo5OJUxC0bfNgJsPucJo3M8FH6xHkmwYH",
		},
		{
			name: "create account", status: 201,
			answer: `{"resourceId":"` + id + `","bban":"12345678903","iban":"NO9312345678903","currency":"NOK","name":"Brukskonto","product":"BRUKSKONTO","cashAccountType":"CACC","bic":"TSTBNO22","_links":{"self":{"href":"/v1/accounts/` + id + `"}}}`,
			call: func(s *Service, t *testing.T) error {
				a, err := s.CreateAccount(t.Context(), &NewAccount{CustomerNumber: "15867512345", BBAN: "12345678903", Currency: "NOK",
					Name: "Brukskonto", Product: "BRUKSKONTO", CashAccountType: "CACC", Balance: "1500.50", CreditLine: "0"})
				if err == nil {
					assert.Equal(t, id, a.ResourceID)
					assert.Equal(t, "NO9312345678903", a.IBAN)
					assert.Equal(t, "TSTBNO22", a.BIC)
				}
				return err
			},
			method: "POST", path: "/api/v1/sandbox/accounts",
			wantBody: `{"customerNumber":"15867512345","bban":"12345678903","currency":"NOK","name":"Brukskonto","product":"BRUKSKONTO","cashAccountType":"CACC","balance":1500.50,"creditLine":0}`,
		},
		{
			name: "create card account", status: 201,
			answer: `{"resourceId":"` + id + `","maskedPan":"552216******1234","currency":"NOK","name":"Kredittkort"}`,
			call: func(s *Service, t *testing.T) error {
				a, err := s.CreateCardAccount(t.Context(), &NewCardAccount{CustomerID: "enc!!cust", MaskedPan: "552216******1234", Currency: "NOK", CreditLimit: "50000", Balance: "-1200.00"})
				if err == nil {
					assert.Equal(t, "552216******1234", a.MaskedPan)
				}
				return err
			},
			method: "POST", path: "/api/v1/sandbox/card-accounts",
			wantBody: `{"customerId":"enc!!cust","maskedPan":"552216******1234","currency":"NOK","creditLimit":50000,"balance":-1200.00}`,
		},
		{
			name: "create transactions", status: 201, answer: `[]`,
			call: func(s *Service, t *testing.T) error {
				return s.CreateTransactions(t.Context(), id, []Transaction{
					{BookingDate: "2026-03-01", ValueDate: "2026-03-01", TransactionAmount: Amount{Amount: "-250.00", Currency: "NOK"},
						CreditorName: "Rema 1000", CreditorAccount: &AccountRef{BBAN: "12345678903"}, RemittanceInformationUnstructured: "Matvarer"},
					{BookingStatus: Pending, TransactionAmount: Amount{Amount: "1000", Currency: "NOK"}, DebtorName: "Ola"},
				})
			},
			method: "POST", path: "/api/v1/sandbox/accounts/" + id + "/transactions",
			wantBody: `[{"bookingDate":"2026-03-01","valueDate":"2026-03-01","transactionAmount":{"amount":-250.00,"currency":"NOK"},"creditorName":"Rema 1000","creditorAccount":{"bban":"12345678903"},"remittanceInformationUnstructured":"Matvarer"},` +
				`{"bookingStatus":"pending","transactionAmount":{"amount":1000,"currency":"NOK"},"debtorName":"Ola"}]`,
		},
		{
			name: "create card transactions", status: 201, answer: `[]`,
			call: func(s *Service, t *testing.T) error {
				return s.CreateCardTransactions(t.Context(), id, []CardTransaction{{TransactionDate: "2026-03-01",
					TransactionAmount: Amount{Amount: "-99.90", Currency: "NOK"}, OriginalAmount: &Amount{Amount: "-9.00", Currency: "EUR"},
					TransactionDetails: "Kiosk", Invoiced: true}})
			},
			method: "POST", path: "/api/v1/sandbox/card-accounts/" + id + "/transactions",
			wantBody: `[{"transactionDate":"2026-03-01","transactionAmount":{"amount":-99.90,"currency":"NOK"},"originalAmount":{"amount":-9.00,"currency":"EUR"},"invoiced":true,"transactionDetails":"Kiosk"}]`,
		},
		{
			name: "create agreement", status: 201,
			answer: `{"id":"f062942c-9ce8-4742-b0ef-39f083f1738b","name":"Fjordlys","engagements":["enc!!x"],"_links":{"self":{"href":"/v1/sandbox/agreements/f062942c-9ce8-4742-b0ef-39f083f1738b","verbs":["GET","DELETE"]}}}`,
			call: func(s *Service, t *testing.T) error {
				a, err := s.CreateAgreement(t.Context(), &NewAgreement{Owner: "912345688", Name: "Fjordlys", Engagements: []Engagement{
					{Customer: "15867512345", Account: AccountRef{IBAN: "NO9312345678903"}, Roles: []string{RoleView, RoleRegister}}}})
				if err == nil {
					assert.Equal(t, "f062942c-9ce8-4742-b0ef-39f083f1738b", a.ID)
					assert.Equal(t, []string{"enc!!x"}, a.Engagements)
				}
				return err
			},
			method: "POST", path: "/api/v1/sandbox/agreements",
			wantBody: `{"owner":"912345688","name":"Fjordlys","engagements":[{"customer":"15867512345","account":{"iban":"NO9312345678903"},"roles":["VIEW","REGISTER"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, _, reqs := mockBank(t, tt.status, tt.answer)
			require.NoError(t, tt.call(svc, t))
			require.Len(t, *reqs, 1)
			r := (*reqs)[0]
			assert.Equal(t, tt.method, r.method)
			assert.Equal(t, tt.path, r.path)
			// The mock-data operations are the only calls that need no
			// TPP-Redirect-URI: mockBank's client sets none.
			assert.Empty(t, r.header.Get("TPP-Redirect-URI"))
			if tt.wantBody == "" {
				assert.Empty(t, r.body)
				return
			}
			assert.JSONEq(t, tt.wantBody, r.body)
			assert.Equal(t, tt.wantBody, r.body, "exact bytes: numbers stay as written")
			assert.Equal(t, signing.Digest([]byte(r.body)), r.header.Get("Digest"))
			assert.Contains(t, r.header.Get("Content-Type"), "application/json")
		})
	}
}

// A nil Service refuses to call and New refuses a nil client; bad inputs
// are in TestBadInputIsValidationErrorAndSendsNothing.
func TestNilServiceAndClient(t *testing.T) {
	t.Parallel()
	var nilSvc *Service
	assert.Error(t, nilSvc.Initialize(t.Context()))
	svc, err := New(nil)
	assert.Nil(t, svc)
	require.ErrorIs(t, err, errNoClient, "New refuses a nil client")
}

func TestBankErrorIsClientError(t *testing.T) {
	t.Parallel()
	svc, _, _ := mockBank(t, http.StatusConflict,
		`{"tppMessages":[{"category":"ERROR","code":"CONFLICT","path":"customerNumber","text":"A customer with this customerNumber exists."}]}`)
	_, err := svc.CreateCustomer(t.Context(), &NewCustomer{CustomerNumber: "13039319955", CustomerType: client.Private, CustomerName: "Kari"})
	var ce *client.Error
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, http.StatusConflict, ce.StatusCode)
	assert.True(t, ce.HasCode("CONFLICT"))
	assert.NotContains(t, err.Error(), "13039319955", "no national id in the error")
}
