package signing_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/tppkit/psd2/signing"
	"software.sslmate.com/src/go-pkcs12"
)

// Loading the TPP's QSealC from a PKCS#12 file, as QTSPs deliver them.
// The keyId the client signs with names the certificate's serial and its
// issuer in RFC 2253.
func ExampleLoadPKCS12() {
	p12 := examplePKCS12("secret") // in production: os.ReadFile("qseal.p12")

	creds, err := signing.LoadPKCS12(p12, "secret")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(signing.KeyID(creds.Certificate))

	_, err = signing.LoadPKCS12(p12, "wrong")
	fmt.Println("wrong password:", errors.Is(err, signing.ErrWrongPassword))
	// Output:
	// SN=1F2E3D,CA=CN=Example QTSP CA,O=Example QTSP AS,C=NO
	// wrong password: true
}

// examplePKCS12 makes a PKCS#12 file holding a certificate valid now and
// its key.
func examplePKCS12(password string) []byte {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	issuer := pkix.Name{CommonName: "Example QTSP CA", Organization: []string{"Example QTSP AS"}, Country: []string{"NO"}}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x1F2E3D),
		Subject:      pkix.Name{CommonName: "Example TPP", Organization: []string{"Example TPP AS"}, Country: []string{"NO"}},
		Issuer:       issuer,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}
	parent := &x509.Certificate{Subject: issuer, SerialNumber: big.NewInt(1)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	data, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		panic(err)
	}
	return data
}
