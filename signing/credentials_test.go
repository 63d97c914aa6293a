package signing

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"software.sslmate.com/src/go-pkcs12"
)

func TestLoadPEM(t *testing.T) {
	t.Parallel()
	now := time.Now()
	k0, k1 := testKey(0), testKey(1)
	ca := validCert(t, 1)
	leaf := newCert(t, &k0.PublicKey, k1, ca, now.Add(-time.Hour), now.Add(time.Hour))
	expired := newCert(t, &k0.PublicKey, k0, nil, now.Add(-48*time.Hour), now.Add(-time.Hour))
	future := newCert(t, &k0.PublicKey, k0, nil, now.Add(time.Hour), now.Add(48*time.Hour))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecCert := newCert(t, &ecKey.PublicKey, ecKey, nil, now.Add(-time.Hour), now.Add(time.Hour))
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	ecDER, err := x509.MarshalECPrivateKey(ecKey)
	require.NoError(t, err)
	ecSEC1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER})
	encrypted := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00"}, Bytes: []byte{1, 2, 3}})
	pkcs8Enc := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1, 2, 3}})
	badCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not DER")})
	badPKCS1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("not DER")})
	badPKCS8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not DER")})
	other := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}})

	tests := []struct {
		name      string
		cert, key []byte
		want      error
		chain     int
	}{
		{name: "PKCS#1", cert: certPEM(leaf), key: pkcs1PEM(k0)},
		{name: "PKCS#8", cert: certPEM(leaf), key: pkcs8PEM(t, k0)},
		{name: "with chain", cert: certPEM(leaf, ca), key: pkcs1PEM(k0), chain: 1},
		{name: "key in the certificate file", cert: append(certPEM(leaf), pkcs8PEM(t, k0)...)},
		{name: "key not matching", cert: certPEM(leaf), key: pkcs1PEM(k1), want: ErrKeyMismatch},
		{name: "EC key PKCS#8", cert: certPEM(leaf), key: pkcs8PEM(t, ecKey), want: ErrKeyNotRSA},
		{name: "EC key SEC 1", cert: certPEM(leaf), key: ecSEC1, want: ErrKeyNotRSA},
		{name: "Ed25519 key", cert: certPEM(leaf), key: pkcs8PEM(t, edKey), want: ErrKeyNotRSA},
		{name: "EC certificate, RSA key", cert: certPEM(ecCert), key: pkcs1PEM(k0), want: ErrKeyNotRSA},
		{name: "expired", cert: certPEM(expired), key: pkcs1PEM(k0), want: ErrCertExpired},
		{name: "not yet valid", cert: certPEM(future), key: pkcs1PEM(k0), want: ErrCertNotYetValid},
		{name: "garbage certificate", cert: []byte("garbage \x00\xff"), key: pkcs1PEM(k0), want: ErrMalformedInput},
		{name: "garbage key", cert: certPEM(leaf), key: []byte("garbage"), want: ErrMalformedInput},
		{name: "certificate not DER", cert: badCert, key: pkcs1PEM(k0), want: ErrMalformedInput},
		{name: "PKCS#1 not DER", cert: certPEM(leaf), key: badPKCS1, want: ErrMalformedInput},
		{name: "PKCS#8 not DER", cert: certPEM(leaf), key: badPKCS8, want: ErrMalformedInput},
		{name: "empty certificate", cert: nil, key: pkcs1PEM(k0), want: ErrNoCertificate},
		{name: "PEM without certificate", cert: other, key: pkcs1PEM(k0), want: ErrNoCertificate},
		{name: "no key anywhere", cert: certPEM(leaf), want: ErrNoKey},
		{name: "PEM without key", cert: certPEM(leaf), key: other, want: ErrNoKey},
		{name: "encrypted PEM key", cert: certPEM(leaf), key: encrypted, want: ErrEncryptedKey},
		{name: "encrypted PKCS#8 key", cert: certPEM(leaf), key: pkcs8Enc, want: ErrEncryptedKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadPEM(tt.cert, tt.key)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
				assert.Nil(t, c)
				assert.NotContains(t, err.Error(), "-----BEGIN", "no key material in errors")
				assert.NotContains(t, err.Error(), "MII", "no key material in errors")
				return
			}
			require.NoError(t, err)
			assert.True(t, c.Certificate.Equal(leaf))
			assert.Len(t, c.Chain, tt.chain)
			assert.True(t, k0.PublicKey.Equal(c.Key.Public()))
			assert.Equal(t, leaf.NotBefore, c.ValidFrom())
			assert.Equal(t, leaf.NotAfter, c.ValidUntil())
		})
	}
}

func TestLoadPKCS12(t *testing.T) {
	t.Parallel()
	now := time.Now()
	k0, k1 := testKey(0), testKey(1)
	ca := validCert(t, 1)
	leaf := newCert(t, &k0.PublicKey, k1, ca, now.Add(-time.Hour), now.Add(time.Hour))
	expired := newCert(t, &k0.PublicKey, k0, nil, now.Add(-48*time.Hour), now.Add(-time.Hour))
	future := newCert(t, &k0.PublicKey, k0, nil, now.Add(time.Hour), now.Add(48*time.Hour))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecCert := newCert(t, &ecKey.PublicKey, ecKey, nil, now.Add(-time.Hour), now.Add(time.Hour))
	const pw = "correct horse 42"

	encode := func(enc *pkcs12.Encoder, key any, cert *x509.Certificate, chain ...*x509.Certificate) []byte {
		data, err := enc.Encode(key, cert, chain, pw)
		require.NoError(t, err)
		return data
	}
	modern := encode(pkcs12.Modern, k0, leaf, ca)
	tests := []struct {
		name     string
		data     []byte
		password string
		want     error
		chain    int
	}{
		{name: "modern", data: modern, password: pw, chain: 1},
		{name: "modern 2026", data: encode(pkcs12.Modern2026, k0, leaf), password: pw},
		{name: "legacy RC2", data: encode(pkcs12.LegacyRC2, k0, leaf, ca), password: pw, chain: 1},
		{name: "legacy DES", data: encode(pkcs12.LegacyDES, k0, leaf), password: pw},
		{name: "modern, wrong password", data: modern, password: "wrong", want: ErrWrongPassword},
		{name: "legacy, wrong password", data: encode(pkcs12.Legacy, k0, leaf), password: "", want: ErrWrongPassword},
		{name: "key not matching", data: encode(pkcs12.Modern, k1, leaf), password: pw, want: ErrKeyMismatch},
		{name: "EC key", data: encode(pkcs12.Modern, ecKey, ecCert), password: pw, want: ErrKeyNotRSA},
		{name: "expired", data: encode(pkcs12.Modern, k0, expired), password: pw, want: ErrCertExpired},
		{name: "not yet valid", data: encode(pkcs12.LegacyRC2, k0, future), password: pw, want: ErrCertNotYetValid},
		{name: "garbage", data: []byte("garbage\x00\x01\x02"), password: pw, want: ErrMalformedInput},
		{name: "PEM instead of PKCS#12", data: certPEM(leaf), password: pw, want: ErrMalformedInput},
		{name: "truncated", data: modern[:len(modern)/2], password: pw, want: ErrMalformedInput},
		{name: "empty", data: nil, password: pw, want: ErrMalformedInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadPKCS12(tt.data, tt.password)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
				assert.Nil(t, c)
				assert.NotContains(t, err.Error(), pw, "the password is never in an error")
				return
			}
			require.NoError(t, err)
			assert.True(t, k0.PublicKey.Equal(c.Key.Public()))
			assert.Equal(t, KeyID(leaf), KeyID(c.Certificate))
			assert.Len(t, c.Chain, tt.chain)
		})
	}
}

func TestCredentialsCheck(t *testing.T) {
	t.Parallel()
	k0 := testKey(0)
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	until := from.Add(365 * 24 * time.Hour)
	cert := newCert(t, &k0.PublicKey, k0, nil, from, until)
	c := &Credentials{Certificate: cert, Key: k0}
	tests := []struct {
		name string
		c    *Credentials
		at   time.Time
		want error
	}{
		{name: "first second", c: c, at: from},
		{name: "last second", c: c, at: until},
		{name: "a second early", c: c, at: from.Add(-time.Second), want: ErrCertNotYetValid},
		{name: "a second late", c: c, at: until.Add(time.Second), want: ErrCertExpired},
		{name: "nil", c: nil, at: from, want: ErrNoCertificate},
		{name: "no key", c: &Credentials{Certificate: cert}, at: from, want: ErrNoKey},
		{name: "other key", c: &Credentials{Certificate: cert, Key: testKey(1)}, at: from, want: ErrKeyMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.ErrorIs(t, tt.c.Check(tt.at), tt.want)
		})
	}
	var none *Credentials
	assert.True(t, none.ValidFrom().IsZero())
	assert.True(t, none.ValidUntil().IsZero())
	assert.Equal(t, from, c.ValidFrom().UTC())
	assert.Equal(t, until, c.ValidUntil().UTC())
}

func FuzzLoadPKCS12(f *testing.F) {
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x03}, "")
	f.Add([]byte("garbage"), "pw")
	f.Fuzz(func(t *testing.T, data []byte, password string) {
		c, err := LoadPKCS12(data, password)
		if err == nil {
			require.NotNil(t, c.Certificate)
		}
	})
}
