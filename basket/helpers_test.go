package basket_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/signing"
)

// baseURL is the bank of the unit tests; httpmock answers for it.
const baseURL = "https://bank.example/api"

// Ids of the literal documents in testdata.
const (
	docBasketID = "enc!!08SR70DzYYmbhUSPQ_6UKnVKSeIBfrqx6f5W7jnqjbA="
	docPayment1 = "enc!!I-HFM1MFfmXXkRmCdcRj1WdMn6_FRsSaJuQkooo9zKmXUzp0AoIyUrxC3Iwh6O3h"
	docPayment2 = "enc!!CTW3nHbZ9wsaQcyC_G2lcdu7hYpGLzyJmfas4gtpnXBvidy-hG1ONTQ9jeYuL0sZ"
)

// psuID is the PSU-ID of the tests (a UUID as the bank gives after SCA).
const psuID = "6b1f5d2c-0a51-4f4e-9d55-0d5b8a3c7e11"

// testKey is one throwaway RSA key for the whole package: the unit tests'
// self-signed certificate and the emulator's TPP certificates use it.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// testCreds returns a self-signed certificate for testKey valid around now.
func testCreds(t testing.TB) *signing.Credentials {
	t.Helper()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(4242),
		Subject:      pkix.Name{CommonName: "Basket test TPP", Organization: []string{"Test TPP AS"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &testKey().PublicKey, testKey())
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &signing.Credentials{Certificate: cert, Key: testKey()}
}

// mockBank returns a basket Service on a client whose requests httpmock
// answers, and the mock transport. Retries are quick so that tests of
// retried calls stay fast.
func mockBank(t *testing.T) (*basket.Service, *httpmock.MockTransport) {
	t.Helper()
	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(func() { httpmock.DeactivateAndReset() })
	mt := hc.Transport.(*httpmock.MockTransport)
	return benchService(t, hc), mt
}

// benchService returns a basket Service on a client sending through hc,
// with quick retries.
func benchService(t testing.TB, hc *http.Client) *basket.Service {
	t.Helper()
	c, err := client.New(baseURL, testCreds(t), client.WithHTTPClient(hc),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second}))
	require.NoError(t, err)
	return basket.New(c)
}

// basketOpts are the headers SERVICE.md 4.1 requires on a basket.
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
