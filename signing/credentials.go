package signing

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Errors returned when loading or checking credentials. Match them with
// errors.Is; the returned errors add detail that never includes key
// material.
var (
	ErrNoCertificate   = errors.New("signing: no certificate found")
	ErrNoKey           = errors.New("signing: no private key found")
	ErrKeyMismatch     = errors.New("signing: private key does not match the certificate")
	ErrKeyNotRSA       = errors.New("signing: key is not RSA (the interface signs with rsa-sha256)")
	ErrWrongPassword   = errors.New("signing: wrong PKCS#12 password")
	ErrCertExpired     = errors.New("signing: certificate has expired")
	ErrCertNotYetValid = errors.New("signing: certificate is not yet valid")
	ErrMalformedInput  = errors.New("signing: malformed certificate or key data")
	// ErrEncryptedKey means a PEM private key is encrypted; decrypt it first
	// (openssl pkcs8 / openssl rsa) or use a PKCS#12 file.
	ErrEncryptedKey = errors.New("signing: encrypted PEM private keys are not supported")
)

// Credentials are a TPP's eIDAS signing certificate (QSealC), its issuing
// chain and the private key. Key is a crypto.Signer so keys held in an HSM or
// a KMS work as well as keys in memory.
//
// Printed, logged or marshalled to JSON, Credentials show the certificate's
// serial number and validity and a [redacted] key, never key material (see
// [Credentials.String]).
type Credentials struct {
	Certificate *x509.Certificate
	Chain       []*x509.Certificate
	Key         crypto.Signer
}

// LoadPEM reads a certificate (followed by its chain, if any) and an RSA
// private key in PEM form (PKCS#1 "RSA PRIVATE KEY" or PKCS#8 "PRIVATE
// KEY"). When keyPEM is empty the key is looked for in certPEM, so one file
// holding both works. It checks that the key is RSA, that it matches the
// certificate and that the certificate is valid now (see
// [Credentials.Check]).
//
// Errors: [ErrNoCertificate] for empty input or PEM without a certificate,
// [ErrMalformedInput] for data that is not PEM or does not parse,
// [ErrNoKey], [ErrEncryptedKey], [ErrKeyNotRSA] (EC, Ed25519 and other
// keys), [ErrKeyMismatch], [ErrCertExpired] and [ErrCertNotYetValid].
func LoadPEM(certPEM, keyPEM []byte) (*Credentials, error) {
	certs, err := parseCertsPEM(certPEM)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(keyPEM)) == 0 {
		keyPEM = certPEM
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

func parseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: the certificate input is empty", ErrNoCertificate)
	}
	var certs []*x509.Certificate
	blocks := 0
	rest := data
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		blocks++
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: certificate %d: %v", ErrMalformedInput, len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	switch {
	case blocks == 0:
		return nil, fmt.Errorf("%w: the certificate input is not PEM", ErrMalformedInput)
	case len(certs) == 0:
		return nil, fmt.Errorf("%w: no CERTIFICATE block in the PEM input", ErrNoCertificate)
	}
	return certs, nil
}

func parseKeyPEM(keyPEM []byte) (crypto.Signer, error) {
	if len(bytes.TrimSpace(keyPEM)) == 0 {
		return nil, fmt.Errorf("%w: the key input is empty", ErrNoKey)
	}
	blocks := 0
	rest := keyPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if blocks == 0 {
				return nil, fmt.Errorf("%w: the key input is not PEM", ErrMalformedInput)
			}
			return nil, fmt.Errorf("%w: no PRIVATE KEY block in the PEM input", ErrNoKey)
		}
		blocks++
		if strings.HasSuffix(block.Type, "PRIVATE KEY") && strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
			return nil, ErrEncryptedKey
		}
		switch block.Type {
		case "RSA PRIVATE KEY":
			k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%w: PKCS#1 private key does not parse", ErrMalformedInput)
			}
			return k, nil
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%w: PKCS#8 private key does not parse", ErrMalformedInput)
			}
			return rsaSigner(k)
		case "EC PRIVATE KEY":
			return nil, fmt.Errorf("%w: found an EC private key", ErrKeyNotRSA)
		case "ENCRYPTED PRIVATE KEY":
			return nil, ErrEncryptedKey
		}
	}
}

// rsaSigner returns k as a crypto.Signer if it is an RSA private key.
func rsaSigner(k any) (crypto.Signer, error) {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		return nil, fmt.Errorf("%w: found an ECDSA private key", ErrKeyNotRSA)
	case ed25519.PrivateKey, *ed25519.PrivateKey:
		return nil, fmt.Errorf("%w: found an Ed25519 private key", ErrKeyNotRSA)
	case nil:
		return nil, ErrNoKey
	default:
		return nil, fmt.Errorf("%w: found a %T private key", ErrKeyNotRSA, k)
	}
}

// LoadPKCS12 reads a PKCS#12 (.p12, .pfx) file holding the certificate, its
// chain and the RSA private key, protected by password. Modern (PBES2 with
// AES) and legacy (RC2, 3DES) encodings are read. The checks of [LoadPEM]
// apply.
//
// Errors: [ErrWrongPassword], [ErrMalformedInput] for empty input or data
// that is not PKCS#12, [ErrKeyNotRSA], [ErrKeyMismatch], [ErrCertExpired]
// and [ErrCertNotYetValid].
func LoadPKCS12(data []byte, password string) (*Credentials, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: the PKCS#12 input is empty", ErrMalformedInput)
	}
	key, cert, chain, err := decodePKCS12(data, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return nil, ErrWrongPassword
		}
		return nil, fmt.Errorf("%w: not a PKCS#12 file with one key and certificate", ErrMalformedInput)
	}
	if cert == nil {
		return nil, ErrNoCertificate
	}
	signer, err := rsaSigner(key)
	if err != nil {
		return nil, err
	}
	creds := &Credentials{Certificate: cert, Chain: chain, Key: signer}
	if err := creds.Check(time.Now()); err != nil {
		return nil, err
	}
	return creds, nil
}

// decodePKCS12 calls pkcs12.DecodeChain and turns a panic inside it (on
// hostile input) into an error.
func decodePKCS12(data []byte, password string) (key any, cert *x509.Certificate, chain []*x509.Certificate, err error) {
	defer func() {
		if recover() != nil {
			key, cert, chain, err = nil, nil, nil, errors.New("pkcs12: decoder failed")
		}
	}()
	return pkcs12.DecodeChain(data, password)
}

// Check reports whether the credentials can sign at time now: an RSA key
// that matches the certificate, and a certificate inside its validity window
// (NotBefore and NotAfter inclusive).
func (c *Credentials) Check(now time.Time) error {
	if c == nil || c.Certificate == nil {
		return ErrNoCertificate
	}
	if c.Key == nil {
		return ErrNoKey
	}
	pub, ok := c.Key.Public().(*rsa.PublicKey)
	if !ok {
		return fmt.Errorf("%w: the private key is %T", ErrKeyNotRSA, c.Key.Public())
	}
	certPub, ok := c.Certificate.PublicKey.(*rsa.PublicKey)
	if !ok {
		return fmt.Errorf("%w: the certificate holds a %T", ErrKeyNotRSA, c.Certificate.PublicKey)
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

// ValidFrom is the start of the certificate's validity window (the zero time
// without a certificate).
func (c *Credentials) ValidFrom() time.Time {
	if c == nil || c.Certificate == nil {
		return time.Time{}
	}
	return c.Certificate.NotBefore
}

// ValidUntil is the end of the certificate's validity window (the zero time
// without a certificate).
func (c *Credentials) ValidUntil() time.Time {
	if c == nil || c.Certificate == nil {
		return time.Time{}
	}
	return c.Certificate.NotAfter
}
