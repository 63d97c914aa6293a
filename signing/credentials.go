package signing

import (
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Errors returned when loading or checking credentials. Match them with
// errors.Is.
var (
	ErrNoCertificate   = errors.New("signing: no certificate found")
	ErrNoKey           = errors.New("signing: no private key found")
	ErrKeyMismatch     = errors.New("signing: private key does not match the certificate")
	ErrKeyNotRSA       = errors.New("signing: key is not RSA (the interface signs with rsa-sha256)")
	ErrWrongPassword   = errors.New("signing: wrong PKCS#12 password")
	ErrCertExpired     = errors.New("signing: certificate has expired")
	ErrCertNotYetValid = errors.New("signing: certificate is not yet valid")
	ErrMalformedInput  = errors.New("signing: malformed certificate or key data")
)

// Credentials are a TPP's eIDAS signing certificate (QSealC), its issuing
// chain and the private key. Key is a crypto.Signer so keys held in an HSM or
// a KMS work as well as keys in memory.
type Credentials struct {
	Certificate *x509.Certificate
	Chain       []*x509.Certificate
	Key         crypto.Signer
}

// LoadPEM reads a certificate (followed by its chain, if any) and an RSA
// private key in PEM form (PKCS#1 or PKCS#8). It checks that the key is RSA,
// that it matches the certificate and that the certificate is valid now.
func LoadPEM(certPEM, keyPEM []byte) (*Credentials, error) {
	var certs []*x509.Certificate
	rest := certPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformedInput, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, ErrNoCertificate
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	creds := &Credentials{Certificate: certs[0], Chain: certs[1:], Key: key}
	if err := creds.Check(time.Now()); err != nil {
		return nil, err
	}
	return creds, nil
}

func parseKeyPEM(keyPEM []byte) (crypto.Signer, error) {
	rest := keyPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, ErrNoKey
		}
		switch block.Type {
		case "RSA PRIVATE KEY":
			k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrMalformedInput, err)
			}
			return k, nil
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrMalformedInput, err)
			}
			s, ok := k.(crypto.Signer)
			if !ok {
				return nil, ErrKeyNotRSA
			}
			return s, nil
		case "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
			if block.Type == "EC PRIVATE KEY" {
				return nil, ErrKeyNotRSA
			}
			return nil, fmt.Errorf("%w: encrypted PEM keys are not supported; decrypt it or use PKCS#12", ErrMalformedInput)
		}
	}
}

// LoadPKCS12 reads a PKCS#12 (.p12, .pfx) file holding the certificate, its
// chain and the RSA private key, protected by password. Modern (AES) and
// legacy (RC2, 3DES) encodings are read.
func LoadPKCS12(data []byte, password string) (*Credentials, error) {
	key, cert, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return nil, ErrWrongPassword
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformedInput, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, ErrKeyNotRSA
	}
	creds := &Credentials{Certificate: cert, Chain: chain, Key: signer}
	if err := creds.Check(time.Now()); err != nil {
		return nil, err
	}
	return creds, nil
}

// Check reports whether the credentials can sign at time now: an RSA key
// that matches the certificate, and a certificate inside its validity window.
func (c *Credentials) Check(now time.Time) error {
	if c == nil || c.Certificate == nil {
		return ErrNoCertificate
	}
	if c.Key == nil {
		return ErrNoKey
	}
	pub, ok := c.Key.Public().(*rsa.PublicKey)
	if !ok {
		return ErrKeyNotRSA
	}
	certPub, ok := c.Certificate.PublicKey.(*rsa.PublicKey)
	if !ok {
		return ErrKeyNotRSA
	}
	if !pub.Equal(certPub) {
		return ErrKeyMismatch
	}
	if now.Before(c.Certificate.NotBefore) {
		return fmt.Errorf("%w: valid from %s", ErrCertNotYetValid, c.Certificate.NotBefore.UTC().Format(time.RFC3339))
	}
	if now.After(c.Certificate.NotAfter) {
		return fmt.Errorf("%w: expired %s", ErrCertExpired, c.Certificate.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}

// ValidFrom and ValidUntil bound the certificate's validity window.
func (c *Credentials) ValidFrom() time.Time { return c.Certificate.NotBefore }

// ValidUntil is the end of the certificate's validity window.
func (c *Credentials) ValidUntil() time.Time { return c.Certificate.NotAfter }
