package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/psd2/store"
)

// AcceptFix is an early-adoption switch sent in the x-accept-fix header
// (docs/interface.md section 9).
type AcceptFix string

// The x-accept-fix switches of docs/interface.md section 9. The client always sends
// AcceptAmountAsString.
const (
	AcceptAmountAsString         AcceptFix = "amount-as-string"
	AcceptCardAccountSwitch      AcceptFix = "cardaccount-switch-originalamount-and-transactionamount"
	AcceptLongerNames            AcceptFix = "longer-names"
	AcceptGroupBatchTransactions AcceptFix = "groupBatchTransactions"
	AcceptCashAccountTypeISO     AcceptFix = "cash-account-type-iso"
)

// Option configures a [Client] in [New]. Options validate their arguments;
// an invalid one makes New fail.
type Option func(*config) error

type config struct {
	httpClient *http.Client
	qwac       *tls.Certificate
	rootCAs    *x509.CertPool
	logger     *slog.Logger
	retry      RetryPolicy
	clock      func() time.Time
	acceptFix  []AcceptFix
	keyID      string
	userAgent  string

	credSource    CredentialsSource
	expiryWarning time.Duration
	verifyMode    VerifyMode
	bankCerts     []bankCert

	responseTimeout time.Duration // timeouts.go
	callTimeout     time.Duration

	defaults []RequestOption // WithDefaults
	store    store.Store     // WithStore (state.go)
	observer Observer        // WithObserver (observe.go)
	bank     string          // WithBank (state.go)
	breaker  *BreakerPolicy  // WithBreaker (breaker.go)
	health   *Health         // WithHealth (health.go)
}

// validate checks the options together, after all were applied.
func (c *config) validate() error {
	if c.verifyMode == VerifyRequired && len(c.bankCerts) == 0 {
		return errors.New("client: VerifyRequired needs WithBankCertificates")
	}
	return nil
}

// WithHTTPClient sends requests through hc instead of a client the SDK
// builds. Its Transport should enforce TLS 1.2 or higher; the SDK does not
// change it. Use it for proxies and for tests (for example the emulator's
// Client()).
//
// The Transport must send each request at most once and pass the
// request's context on: the SDK learns what left from net/http's trace
// (httptrace) in that context. A transport that sends a copy under
// another context tells it nothing, so every failed attempt through it
// counts as possibly sent (a payment then ends in ErrOutcomeUnknown,
// never in a retry); a transport that asks for a second connection after
// writing a payment is stopped there. A transport that buffers the body
// and resends it under a context of its own cannot be stopped: do not
// use one.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("client: WithHTTPClient(nil)")
		}
		c.httpClient = hc
		return nil
	}
}

// WithQWAC presents cert (the TPP's eIDAS QWAC) as the TLS client
// certificate for mutual TLS. It applies to the transport the SDK builds;
// with WithHTTPClient, configure the certificate on that client yourself.
// [Client.SetQWAC] replaces it at runtime. New refuses a QWAC whose key
// does not match it, or that is expired or not yet valid, as SetQWAC does.
func WithQWAC(cert tls.Certificate) Option {
	return func(c *config) error {
		if len(cert.Certificate) == 0 || cert.PrivateKey == nil {
			return errors.New("client: WithQWAC needs a certificate and its key")
		}
		c.qwac = &cert
		return nil
	}
}

// WithRootCAs trusts pool for the bank's TLS certificate instead of the
// system roots.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(c *config) error {
		if pool == nil {
			return errors.New("client: WithRootCAs(nil)")
		}
		c.rootCAs = pool
		return nil
	}
}

// WithLogger logs each attempt (method, path template with ids replaced,
// status, request id, duration, attempt number; the request and response
// headers at Debug level) and certificate expiry warnings to l, and the
// recovered panic of a breaker subscriber ([Health.OnChange]) at Error.
// Logging is off by default, but for such a panic, which goes to slog's
// default logger. Header values are logged in clear only when they are on
// the package's one allow list (logHeaders in redact.go); PSU data,
// TPP-Session-ID, the signature, the certificate and any unknown header
// are redacted, TPP-Redirect-URI loses its query, and bodies and queries are
// never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("client: WithLogger(nil)")
		}
		c.logger = l
		return nil
	}
}

// WithRetryPolicy replaces the default [RetryPolicy]. Whatever the policy, a
// POST is never sent again once it may have reached the bank.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) error {
		if err := p.validate(); err != nil {
			return err
		}
		c.retry = p
		return nil
	}
}

// WithClock sets the time source for the Date header and certificate
// checks (tests use it to move time).
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("client: WithClock(nil)")
		}
		c.clock = now
		return nil
	}
}

// WithAcceptFix adds x-accept-fix switches sent on every request, after
// amount-as-string, which is always sent.
func WithAcceptFix(fixes ...AcceptFix) Option {
	return func(c *config) error {
		for _, f := range fixes {
			if f == "" || strings.ContainsAny(string(f), ", ") || checkHeaderValue(string(f)) != nil {
				return fmt.Errorf("client: invalid x-accept-fix value %q", f)
			}
			c.acceptFix = append(c.acceptFix, f)
		}
		return nil
	}
}

// WithKeyID overrides the keyId written in the Signature header (by default
// signing.KeyID of the certificate, the issuer in strict RFC 2253 as Java
// writes it). For a bank that expects OpenSSL's form of the issuer
// (organizationIdentifier=...), pass signing.KeyIDOpenSSL(cert). It is
// written between the quotes of keyId="..." as it is (signing.QuoteParam):
// non-empty valid UTF-8, with no double quote but RFC 2253's escaped one
// and no unpaired backslash at its end (signing.NewSigner refuses it
// otherwise); non-ASCII or control characters make the Signature an RFC
// 2047 encoded word.
func WithKeyID(keyID string) Option {
	return func(c *config) error {
		if keyID == "" || !utf8.ValidString(keyID) {
			return errors.New("client: the keyId must be non-empty valid UTF-8")
		}
		c.keyID = keyID
		return nil
	}
}

// WithUserAgent sets the User-Agent header of the TPP's requests.
func WithUserAgent(ua string) Option {
	return func(c *config) error {
		if checkHeaderValue(ua) != nil {
			return errors.New("client: invalid User-Agent")
		}
		c.userAgent = ua
		return nil
	}
}

// WithCredentialsSource makes the client ask src for the signing
// credentials before every attempt instead of using those given to [New]
// (which may then be nil) or to [Client.SetCredentials]. Use it to rotate
// credentials from a secret store without a restart.
func WithCredentialsSource(src CredentialsSource) Option {
	return func(c *config) error {
		if src == nil {
			return errors.New("client: WithCredentialsSource(nil)")
		}
		c.credSource = src
		return nil
	}
}

// WithExpiryWarning sets how long before the signing certificate or the
// QWAC expires the client starts warning through its logger, once per
// certificate (default [DefaultExpiryWarning], 30 days). 0 turns the
// warning off. Signing with an expired or not-yet-valid certificate is
// always refused, with an error matching signing.ErrCertExpired or
// signing.ErrCertNotYetValid.
func WithExpiryWarning(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return errors.New("client: WithExpiryWarning needs a duration >= 0")
		}
		c.expiryWarning = d
		return nil
	}
}

// WithDefaults sets per-call options once for every call of the client:
// typically the redirect URI, which the interface requires on every call
// but the sandbox's, the brand logging information and a PSU context.
// They are applied before each call's own options, so a call can replace a
// default header. The options are checked here: an invalid one makes [New]
// fail. [WithRequestID] cannot be a default, since a request id is unique
// per call. Several WithDefaults add up, in order.
//
//	c, err := client.New(baseURL, creds,
//		client.WithDefaults(
//			client.WithRedirectURI("https://tpp.example/callback"),
//			client.WithBrandLoggingInformation("Example TPP"),
//		))
func WithDefaults(opts ...RequestOption) Option {
	return func(c *config) error {
		call, err := applyOptions(opts)
		if err != nil {
			return fmt.Errorf("client: WithDefaults: %w", err)
		}
		if call.requestID != "" {
			return errors.New("client: WithDefaults: a request id is unique per call and cannot be a default")
		}
		c.defaults = append(c.defaults, opts...)
		return nil
	}
}
