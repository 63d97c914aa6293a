package payments_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// baseURL is the bank of the httpmock unit tests.
const baseURL = testtpp.BaseURL

// Values of the platform documents in testdata and of the requests.
const (
	ndctID      = "enc!!I-HFM1MFfmXXkRmCdcRj1WdMn6_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h"
	sepaID      = "enc!!LzaCTw6T4hC5SbVypoVQ-q00GkgB8qoaIwcNZNaui8T1ssDuUuhkW2kLj8-1XM6X"
	sessionID   = "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"
	redirectURI = "https://tpp.example/callback"
	psuIP       = "192.0.2.10"
)

// testNow is the clock of the unit tests: 10 March 2025, noon in Oslo.
var testNow = time.Date(2025, 3, 10, 11, 0, 0, 0, time.UTC)

// newMockService returns a Service on baseURL whose HTTP client is
// activated with httpmock. httpmock.ActivateNonDefault installs the
// package-wide DefaultTransport, so tests using it do not run in
// parallel. Retries are off so that every answer is seen once.
func newMockService(t *testing.T) *payments.Service {
	t.Helper()
	c := testtpp.MockClient(t, client.WithRetryPolicy(client.RetryPolicy{}))
	return payments.New(c, payments.WithClock(func() time.Time { return testNow }))
}

// testdata returns a file of testdata.
func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// captured is a request the mock bank received, with its body read.
type captured struct {
	req  *http.Request
	body []byte
}

// respond registers a responder for method and path (under baseURL, as
// sent) answering status with the testdata file name (no body when name
// is ""), and returns where the request is kept.
func respond(t *testing.T, method, path string, status int, name string) *captured {
	t.Helper()
	var body []byte
	if name != "" {
		body = testdata(t, name)
	}
	got := &captured{}
	httpmock.RegisterResponder(method, baseURL+path, func(req *http.Request) (*http.Response, error) {
		got.req = req
		if req.Body != nil {
			got.body, _ = io.ReadAll(req.Body)
		}
		resp := httpmock.NewBytesResponse(status, body)
		if name != "" {
			resp.Header.Set("Content-Type", "application/json")
		}
		return resp, nil
	})
	return got
}

// psuPresent are the options of a payment call with the PSU present.
func psuPresent() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{IPAddress: psuIP})}
}

// validNDCT is the payment echoed by testdata/payment-ndct-details.json.
func validNDCT() *payments.NorwegianDomestic {
	return &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("1250.00", "NOK"),
		CreditorName:                      "Ola Eksempel",
		CreditorAccount:                   payments.AccountReference{BBAN: "91026527436", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
		RemittanceInformationUnstructured: "Hyttetur påske",
		RequestedExecutionDate:            payments.Date{Year: 2025, Month: time.March, Day: 17},
	}
}

// validSEPA is a SEPA payment from a Norwegian to a German account.
func validSEPA() *payments.SEPA {
	return &payments.SEPA{
		EndToEndIdentification:            "INV-2025-0042",
		InstructedAmount:                  money.MustParse("99.95", "EUR"),
		CreditorName:                      "Muster GmbH",
		CreditorAccount:                   payments.AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"},
		CreditorAddress:                   &payments.Address{Street: "Hauptstraße", BuildingNumber: "1", PostalCode: "10115", City: "Berlin", Country: "DE"},
		DebtorAccount:                     payments.AccountReference{IBAN: "NO9386011117947", Currency: "EUR"},
		RemittanceInformationUnstructured: "Invoice 42",
	}
}

func boolPtr(b bool) *bool { return &b }
