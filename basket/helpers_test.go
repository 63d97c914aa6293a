package basket_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// baseURL is the bank of the unit tests; httpmock answers for it.
const baseURL = testtpp.BaseURL

// Ids of the literal documents in testdata.
const (
	docBasketID = "enc!!08SR70DzYYmbhUSPQ_6UKnVKSeIBfrqx6f5W7jnqjbA="
	docPayment1 = "enc!!I-HFM1MFfmXXkRmCdcRj1WdMn6_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h"
	docPayment2 = "enc!!CTW3nHbZ9wsaQcyC_G2lcdu7hYpGLzyJmfas4gtpnXBvidy-hG1ONTQ9jeYuL0sZ"
)

// psuID is the PSU-ID of the tests (a UUID as the bank gives after SCA).
const psuID = "6b1f5d2c-0a51-4f4e-9d55-0d5b8a3c7e11"

// mockBank returns a basket Service on a client whose requests httpmock
// answers (testtpp.MockClient: tests using it do not run in parallel).
// Retries are quick so that tests of retried calls stay fast.
func mockBank(t testing.TB) *basket.Service {
	t.Helper()
	c := testtpp.MockClient(t,
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}))
	svc, err := basket.New(c)
	require.NoError(t, err)
	return svc
}

// mockBankNoRedirect is mockBank on a client without a default
// TPP-Redirect-URI.
func mockBankNoRedirect(t testing.TB) *basket.Service {
	t.Helper()
	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(httpmock.DeactivateAndReset)
	c, err := client.New(baseURL, testtpp.Credentials(t, "Test TPP"), client.WithHTTPClient(hc))
	require.NoError(t, err)
	svc, err := basket.New(c)
	require.NoError(t, err)
	return svc
}

// basketOpts are the headers docs/interface.md section 4.1 requires on a basket.
func basketOpts() []client.RequestOption {
	return []client.RequestOption{
		client.WithTPPSessionID("pis-session-1"),
		client.WithRedirectURI("https://tpp.example/cb?state=basket"),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: "192.0.2.10"}),
	}
}

// doc reads a literal bank document from testdata.
func doc(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}
