package payments_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/signing"
)

// baseURL is the bank of the httpmock unit tests.
const baseURL = testtpp.BaseURL

// Values of the platform documents in testdata and of the requests.
const (
	ndctID      = "enc!!I-HFM1MFfmXXkRmCdcRj1WdMn6_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h"
	sepaID      = "enc!!LzaCTw6T4hC5SbVypoVQ-q00GkgB8qoaIwcNZNaui8T1ssDuUuhkW2kLj8-1XM6X"
	sessionID   = "5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"
	psuID       = "0a6c3bd4-6f0e-4d5c-9b1a-2e3f4a5b6c7d"
	redirectURI = "https://tpp.example/callback"
	psuIP       = "192.0.2.10"
)

// testNow is the clock of the unit tests: 10 March 2025, noon in Oslo.
var testNow = time.Date(2025, 3, 10, 11, 0, 0, 0, time.UTC)

// newMockService returns a Service on baseURL whose HTTP client is
// activated with httpmock, on a client whose clock stands at testNow (the
// service validates execution dates on it). httpmock.ActivateNonDefault
// installs the package-wide DefaultTransport, so tests using it do not
// run in parallel. Retries are off so that every answer is seen once.
func newMockService(t *testing.T) *payments.Service {
	t.Helper()
	svc, err := payments.New(mockClient(t, client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI))))
	require.NoError(t, err)
	return svc
}

// mockClient is the client of newMockService, with opts (its defaults)
// instead of the default TPP-Redirect-URI.
func mockClient(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(httpmock.DeactivateAndReset)
	c, err := client.New(baseURL, credentialsAt(t, testNow), append([]client.Option{client.WithHTTPClient(hc),
		client.WithClock(func() time.Time { return testNow }), client.WithRetryPolicy(client.RetryPolicy{})}, opts...)...)
	require.NoError(t, err)
	return c
}

// credentialsAt returns throwaway credentials for testtpp.Key valid
// around now: the client refuses a certificate outside its validity on
// its own clock.
func credentialsAt(t *testing.T, now time.Time) *signing.Credentials {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.Unix()), Subject: pkix.Name{CommonName: "Payments test PISP"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(365 * 24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	return testtpp.SelfSigned(t, tmpl)
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

// psuPresent are the options of a payment call with the PSU present:
// every header a payment's creation requires.
func psuPresent() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID(sessionID), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}), client.WithPSUContext(client.Private)}
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
		RequestedExecutionDate:            date.Date{Year: 2025, Month: time.March, Day: 17},
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
