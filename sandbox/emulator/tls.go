package emulator

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/signing"
)

// oidOrganizationIdentifier is organizationIdentifier (2.5.4.97), which
// eIDAS certificates carry in both subject and issuer names.
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// caName is the emulator's test QTSP: its name has organizationIdentifier
// and a non-ASCII letter, so keyIds exercise RFC 2253 rendering and the
// RFC 2047 wrapping of the Signature header (docs/interface.md section 5.6).
func caName() pkix.Name {
	return pkix.Name{
		Country:      []string{"NO"},
		Organization: []string{"Testbank Tillitstjenester ØST"},
		CommonName:   "Testbank Tillitstjenester ØST QTSP CA",
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: oidOrganizationIdentifier, Value: "NTRNO-999999999"},
		},
	}
}

// authority is the emulator's certificate authority: it issues the TLS
// certificate of the server and the TPP certificates of [Server.NewTPP].
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
	tls  tls.Certificate // leaf for 127.0.0.1, ::1 and localhost
}

// validity returns a certificate validity window around both the emulator
// clock and the real clock (clients check certificates on the real one),
// from a day before the earlier to years after the later.
func validity(now time.Time, years int) (time.Time, time.Time) {
	real := time.Now()
	from, to := now, now
	if real.Before(from) {
		from = real
	}
	if real.After(to) {
		to = real
	}
	return from.Add(-24 * time.Hour), to.AddDate(years, 0, 0)
}

func newAuthority(now time.Time) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	from, to := validity(now, 10)
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               caName(),
		NotBefore:             from,
		NotAfter:              to,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	a := &authority{cert: ca, key: key}

	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "psd2 emulator"},
		NotBefore:    from,
		NotAfter:     to.AddDate(-5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, leafKey.Public(), key)
	if err != nil {
		return nil, err
	}
	a.tls = tls.Certificate{Certificate: [][]byte{leafDER, der}, PrivateKey: leafKey}
	return a, nil
}

// issue certifies pub as a TPP signing certificate for name.
func (a *authority) issue(name string, pub crypto.PublicKey, now time.Time) (*x509.Certificate, error) {
	notBefore, notAfter := validity(now, 2)
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject: pkix.Name{
			Country:      []string{"NO"},
			Organization: []string{name},
			CommonName:   name,
			ExtraNames: []pkix.AttributeTypeAndValue{
				{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-" + strings.ToUpper(hex.EncodeToString(randomBytes(4)))},
			},
		},
		NotBefore: notBefore,
		NotAfter:  notAfter,
		KeyUsage:  x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, pub, a.key)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// randomSerial returns a positive 128-bit serial number whose first byte
// has its top bit clear (so the upper-hex keyId has no sign byte).
func randomSerial() *big.Int {
	b := randomBytes(16)
	b[0] &= 0x7f
	b[0] |= 0x10
	return new(big.Int).SetBytes(b)
}

func isRSA(key crypto.Signer) bool {
	if key == nil {
		return false
	}
	_, ok := key.Public().(*rsa.PublicKey)
	return ok
}

// fingerprint identifies a TPP certificate: hex SHA-256 of its DER.
func fingerprint(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	return hex.EncodeToString(sum[:])
}

// tpp is a registered TPP certificate.
type tpp struct {
	id   string // tppIdentity of the certificate: its organisation, the same across renewals
	name string
	cert *x509.Certificate
	// keyIDs remembers keyId values that matched cert (see matchKeyID).
	keyIDs keyIDCache
}

// keyIDCache remembers up to maxKeyIDs keyId values that matched a
// certificate, so that a TPP's calls do not parse its issuer's name again
// each time. Only matches are kept: a wrong keyId is checked in full.
type keyIDCache struct {
	mu   sync.RWMutex
	seen []string
}

const maxKeyIDs = 4

// matchKeyID reports whether keyID names t's certificate, as
// signing.MatchKeyID does.
func (t *tpp) matchKeyID(keyID string) bool {
	c := &t.keyIDs
	c.mu.RLock()
	known := slices.Contains(c.seen, keyID)
	c.mu.RUnlock()
	if known {
		return true
	}
	if !signing.MatchKeyID(keyID, t.cert) {
		return false
	}
	c.mu.Lock()
	if len(c.seen) < maxKeyIDs && !slices.Contains(c.seen, keyID) {
		c.seen = append(c.seen, keyID)
	}
	c.mu.Unlock()
	return true
}

// NewTPP issues a TPP signing certificate for name from the emulator's test
// QTSP CA, registers it as trusted and returns it with its key and chain.
// The issuer name carries organizationIdentifier and a non-ASCII letter
// (like real eIDAS QTSPs), so the keyId exercises RFC 2253 rendering.
//
// All TPPs of one server share one RSA 2048 key, generated on the first call
// (or given with [WithTPPKey]); each gets its own certificate, serial and
// random organizationIdentifier (PSDNO-FSA-...), so each is a different
// TPP to the emulator. A certificate registered with [Server.Trust] that
// carries the organizationIdentifier of a known TPP (a renewal) is that
// same TPP: its PSU-IDs and sessions stay valid.
func (s *Server) NewTPP(name string) (*signing.Credentials, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("emulator: NewTPP: empty name")
	}
	key, err := s.sharedTPPKey()
	if err != nil {
		return nil, fmt.Errorf("emulator: NewTPP: %w", err)
	}
	cert, err := s.ca.issue(name, key.Public(), s.wireNow())
	if err != nil {
		return nil, fmt.Errorf("emulator: NewTPP: %w", err)
	}
	s.mu.Lock()
	s.trustLocked(cert, name)
	s.mu.Unlock()
	return &signing.Credentials{Certificate: cert, Chain: []*x509.Certificate{s.ca.cert}, Key: key}, nil
}

func (s *Server) sharedTPPKey() (crypto.Signer, error) {
	s.keyOnce.Do(func() {
		if s.tppKey != nil {
			return
		}
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			s.keyErr = err
			return
		}
		s.tppKey = k
	})
	return s.tppKey, s.keyErr
}

// Trust registers an existing TPP signing certificate (one the TPP got from
// a real or test QTSP) as trusted. A nil certificate is ignored.
func (s *Server) Trust(cert *x509.Certificate) {
	if cert == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trustLocked(cert, cert.Subject.CommonName)
}

func (bk *bank) trustLocked(cert *x509.Certificate, name string) {
	bk.tpps[fingerprint(cert)] = &tpp{id: tppIdentity(cert), name: name, cert: cert}
}

// CACertificate returns the emulator's certificate authority: it signed the
// server's TLS certificate and the TPP certificates of [Server.NewTPP]. Add
// it to a trust pool to reach the server with a client of your own.
func (s *Server) CACertificate() *x509.Certificate { return s.ca.cert }
