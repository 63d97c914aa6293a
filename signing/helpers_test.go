package signing

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Throwaway RSA keys, generated once per test binary: key 0 and key 1.
var testKeys = sync.OnceValue(func() [2]*rsa.PrivateKey {
	var ks [2]*rsa.PrivateKey
	for i := range ks {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		ks[i] = k
	}
	return ks
})

func testKey(i int) *rsa.PrivateKey { return testKeys()[i] }

// newCert issues a certificate for pub valid from..until, signed by
// signer under parent (self-signed when parent is nil).
func newCert(t testing.TB, pub crypto.PublicKey, signer crypto.Signer, parent *x509.Certificate, from, until time.Time) *x509.Certificate {
	t.Helper()
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Test TPP", Organization: []string{"Test TPP AS"}},
		NotBefore:             from,
		NotAfter:              until,
		BasicConstraintsValid: true,
		IsCA:                  parent == nil,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

// validCert is a self-signed certificate for key i, valid now.
func validCert(t testing.TB, i int) *x509.Certificate {
	now := time.Now()
	return newCert(t, &testKey(i).PublicKey, testKey(i), nil, now.Add(-time.Hour), now.Add(24*time.Hour))
}

func certPEM(certs ...*x509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return out
}

func pkcs1PEM(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

func pkcs8PEM(t testing.TB, k any) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// cavageKey is the published test key of draft-cavage-http-signatures-12
// Appendix C.
var cavageKey = sync.OnceValue(func() *rsa.PrivateKey {
	data, err := os.ReadFile("testdata/draft-cavage-test-key.pem")
	if err != nil {
		panic(err)
	}
	block, _ := pem.Decode(data)
	k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		panic(err)
	}
	return k
})
