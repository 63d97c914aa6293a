package client

import (
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/signing"
)

// DefaultExpiryWarning is how long before a certificate expires the client
// starts warning through its logger, unless [WithExpiryWarning] says
// otherwise.
const DefaultExpiryWarning = 30 * 24 * time.Hour

// CredentialsSource returns the signing credentials to use now. The client
// asks it once per attempt, so a source backed by a secret store or a file
// watcher rotates credentials without a restart. It must be safe for
// concurrent use and fast; return the same *signing.Credentials pointer
// while nothing changed (the client caches the signer built for it).
type CredentialsSource func(ctx context.Context) (*signing.Credentials, error)

// credState is what the client signs with; it is swapped atomically, so
// that a request signs with one consistent certificate, key and keyId.
type credState struct {
	creds   *signing.Credentials
	signer  *signing.Signer
	certB64 string
	warned  atomic.Bool // the expiry warning for this certificate was logged
}

// qwacState is the TLS client certificate presented on new connections.
type qwacState struct {
	cert   *tls.Certificate
	leaf   *x509.Certificate
	warned atomic.Bool
}

var errForeignTransport = errors.New("client: SetQWAC needs the transport the SDK builds; configure the certificate on the http.Client given to WithHTTPClient")

// SetCredentials replaces the signing credentials at runtime. Requests in
// flight finish with the credentials they were signed with; later attempts
// use the new ones. The key must be RSA and match the certificate, and the
// certificate must be valid now on the client's clock: an expired or
// not-yet-valid one is refused with an error matching
// signing.ErrCertExpired or signing.ErrCertNotYetValid ([New] refuses it
// the same way). To inspect an expired certificate, load it with the
// signing package, which does not check validity. When
// [WithCredentialsSource] is set, the source takes precedence.
//
// The certificate must be of the same TPP as the client's first one (the
// same organizationIdentifier, see [Client.Scope]): a renewal is
// accepted, another organisation's certificate is refused with an
// [*IdentityError] matching [ErrOtherTPP] and the current credentials
// stay. The SDK offers no call that switches a client to another TPP,
// since its budget and journal belong to one; make a new [Client] for it.
func (c *Client) SetCredentials(creds *signing.Credentials) error {
	st, err := c.newCredState(creds)
	if err != nil {
		return err
	}
	if err := checkValidity(creds.Certificate, c.cfg.clock()); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if err := c.pinIdentity(creds.Certificate); err != nil {
		return err
	}
	c.state.Store(st)
	return nil
}

// Credentials returns the credentials the client signs with now: those of
// the last SetCredentials, or the last answer of the credentials source.
func (c *Client) Credentials() *signing.Credentials {
	if c.cfg.credSource != nil {
		if st := c.srcState.Load(); st != nil {
			return st.creds
		}
	}
	if st := c.state.Load(); st != nil {
		return st.creds
	}
	return nil
}

func (c *Client) newCredState(creds *signing.Credentials) (*credState, error) {
	if creds == nil || creds.Certificate == nil || creds.Key == nil {
		return nil, errors.New("client: credentials need a certificate and a key")
	}
	// Checking at the start of the validity window tests the key alone
	// (RSA, matching the certificate); the window itself is checked before
	// every signature, against the bank's clock.
	if err := creds.Check(creds.Certificate.NotBefore); err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	keyID := c.cfg.keyID
	if keyID == "" {
		keyID = signing.KeyID(creds.Certificate)
	}
	s, err := signing.NewSigner(creds.Key, keyID)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return &credState{creds: creds, signer: s, certB64: base64.StdEncoding.EncodeToString(creds.Certificate.Raw)}, nil
}

// credentials returns the state to sign one attempt with, checked against
// the certificate's validity window at time now.
func (c *Client) credentials(ctx context.Context, now time.Time) (*credState, error) {
	var st *credState
	if src := c.cfg.credSource; src != nil {
		creds, err := src(ctx)
		if err != nil {
			return nil, fmt.Errorf("credentials source: %w", err)
		}
		st = c.srcState.Load()
		if st == nil || st.creds != creds {
			if st, err = c.newCredState(creds); err != nil {
				return nil, err
			}
			if err := c.pinIdentity(creds.Certificate); err != nil {
				return nil, err
			}
			c.srcState.Store(st)
		}
	} else {
		st = c.state.Load()
	}
	cert := st.creds.Certificate
	if err := checkValidity(cert, now); err != nil {
		return nil, err
	}
	if !st.warned.Load() && c.expiresSoon(cert, now) && st.warned.CompareAndSwap(false, true) {
		c.warnExpiry("signing", cert, now)
	}
	return st, nil
}

// checkValidity refuses a certificate outside its validity window: the
// bank would answer 400, and a clear local error is more useful.
func checkValidity(cert *x509.Certificate, now time.Time) error {
	return checkValidityOf("signing certificate", cert, now)
}

// checkValidityOf is checkValidity for the certificate named kind.
func checkValidityOf(kind string, cert *x509.Certificate, now time.Time) error {
	if now.Before(cert.NotBefore) {
		return fmt.Errorf("%w: %s valid from %s", signing.ErrCertNotYetValid, kind, cert.NotBefore.UTC().Format(time.RFC3339))
	}
	if now.After(cert.NotAfter) {
		return fmt.Errorf("%w: %s expired %s", signing.ErrCertExpired, kind, cert.NotAfter.UTC().Format(time.RFC3339))
	}
	return nil
}

func (c *Client) expiresSoon(cert *x509.Certificate, now time.Time) bool {
	return c.cfg.logger != nil && c.cfg.expiryWarning > 0 && cert.NotAfter.Sub(now) < c.cfg.expiryWarning
}

// warnExpiry logs that a certificate expires soon (or has expired). The
// serial and the validity end are not secret; the subject is left out.
func (c *Client) warnExpiry(kind string, cert *x509.Certificate, now time.Time) {
	msg := "psd2: certificate expires soon"
	if now.After(cert.NotAfter) {
		msg = "psd2: certificate has expired"
	}
	c.cfg.logger.LogAttrs(context.Background(), slog.LevelWarn, msg,
		slog.String("certificate", kind),
		slog.String("serial", cert.SerialNumber.Text(16)),
		slog.Time("not_after", cert.NotAfter),
		slog.Duration("remaining", cert.NotAfter.Sub(now).Truncate(time.Second)))
}

// SetQWAC replaces the QWAC (the TLS client certificate of mutual TLS) at
// runtime. New connections present the new certificate; idle connections
// are closed so that they are not reused. It works only with the transport
// the SDK builds (not with [WithHTTPClient]). As with [Client.SetCredentials],
// the key must match the certificate and the certificate must be valid now
// on the client's clock: an expired or not-yet-valid QWAC is refused with
// an error matching signing.ErrCertExpired or signing.ErrCertNotYetValid,
// and the current one stays ([New] refuses such a [WithQWAC] the same way).
func (c *Client) SetQWAC(cert tls.Certificate) error {
	if len(cert.Certificate) == 0 || cert.PrivateKey == nil {
		return errors.New("client: a QWAC needs a certificate and its key")
	}
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return fmt.Errorf("client: QWAC: %w", err)
		}
	}
	if err := checkKeyMatches(cert.PrivateKey, leaf); err != nil {
		return fmt.Errorf("client: QWAC: %w", err)
	}
	if err := checkValidityOf("QWAC", leaf, c.cfg.clock()); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if c.cfg.httpClient != nil {
		return errForeignTransport
	}
	c.qwac.Store(&qwacState{cert: &cert, leaf: leaf})
	if c.hc != nil {
		c.hc.CloseIdleConnections()
	}
	return nil
}

// checkKeyMatches refuses a private key that is not the one of cert: TLS
// would fail the handshake of every new connection.
func checkKeyMatches(key crypto.PrivateKey, cert *x509.Certificate) error {
	signer, ok := key.(crypto.Signer)
	if !ok {
		return fmt.Errorf("the private key (%T) cannot sign", key)
	}
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cert.PublicKey) {
		return errors.New("the private key does not match the certificate")
	}
	return nil
}

// clientCertificate is the transport's tls.Config.GetClientCertificate:
// it presents the current QWAC, or none.
func (c *Client) clientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	q := c.qwac.Load()
	if q == nil {
		return &tls.Certificate{}, nil
	}
	now := c.now()
	if !q.warned.Load() && c.expiresSoon(q.leaf, now) && q.warned.CompareAndSwap(false, true) {
		c.warnExpiry("qwac", q.leaf, now)
	}
	return q.cert, nil
}
