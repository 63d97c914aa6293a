package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/internal/loopback"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// Client holds the TPP's credentials and the bank's base URL and carries
// every request of the typed services (payments, accounts, basket, sca,
// sandbox) through one pipeline: options, JSON body, X-Request-ID, Date,
// Digest, x-accept-fix, signature, retries that are safe for payments,
// response verification and typed errors. A Client is safe for concurrent
// use.
type Client struct {
	base     *url.URL
	basePath string // base path without trailing slash, e.g. "/api"
	cfg      config
	hc       *http.Client

	state    atomic.Pointer[credState] // set by SetCredentials
	srcState atomic.Pointer[credState] // last answer of the credentials source
	qwac     atomic.Pointer[qwacState]
	offset   atomic.Int64 // learned server clock offset in nanoseconds

	clockMu      sync.Mutex    // guards the candidate offset (clock.go)
	candidate    time.Duration // a large change of offset seen once
	hasCandidate bool

	warnedNoBankCert atomic.Bool

	identity atomic.Pointer[string] // the TPP's, fixed by the first credentials (identity.go)
	bankURL  string                 // the base URL in canonical form (identity.go)
	hostPort string                 // the base URL's host and port, the scheme's default port when it names none (OperationStart.Host)
	scope    atomic.Pointer[string] // Scope, once the identity is fixed
	// identityWait is identityWait (a test's may be shorter).
	identityWait time.Duration
	// longest, when not 0, is LongestCall (a test's, shorter).
	longest time.Duration

	parts sync.Map // Part: key -> value

	health atomic.Pointer[bankHealth] // the bank's health, once the scope is fixed (health.go)
}

// New returns a Client for the bank at baseURL (for example
// "https://psd2.bank.example/api") signing with creds.
//
// baseURL must be https; http is accepted only for loopback hosts (the
// emulator, tests). creds may be nil only when [WithCredentialsSource]
// supplies the credentials.
func New(baseURL string, creds *signing.Credentials, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	// Hostname, not Host: "https://:443/api" names no host (it would dial
	// this machine).
	if err != nil || u.Hostname() == "" || !u.IsAbs() {
		return nil, fmt.Errorf("client: invalid base URL %q", baseURL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, errors.New("client: base URL must use https (http only on loopback)")
		}
	default:
		return nil, errors.New("client: base URL must use https")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return nil, errors.New("client: base URL must not carry query, fragment or user info")
	}
	c := &Client{base: u, basePath: strings.TrimRight(u.EscapedPath(), "/"), bankURL: canonicalBank(u),
		hostPort: hostPort(u), identityWait: identityWait}
	c.cfg.retry = DefaultRetryPolicy()
	c.cfg.clock = time.Now
	c.cfg.expiryWarning = DefaultExpiryWarning
	c.cfg.responseTimeout = DefaultResponseTimeout
	c.cfg.callTimeout = DefaultCallTimeout
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c.cfg); err != nil {
			return nil, err
		}
	}
	if err := c.cfg.validate(); err != nil {
		return nil, err
	}
	if c.cfg.store == nil {
		c.cfg.store = store.NewMemoryStore()
	}
	if c.cfg.health == nil {
		c.cfg.health = NewHealth()
	}
	if creds != nil || c.cfg.credSource == nil {
		if err := c.SetCredentials(creds); err != nil {
			return nil, err
		}
	}
	if c.cfg.qwac != nil {
		if err := c.SetQWAC(*c.cfg.qwac); err != nil && !errors.Is(err, errForeignTransport) {
			return nil, err
		}
	}
	if c.cfg.httpClient != nil {
		// A shallow copy, so that the caller's client keeps its own
		// redirect policy while ours refuses to follow redirects.
		hc := *c.cfg.httpClient
		hc.CheckRedirect = refuseRedirect
		c.hc = &hc
	} else {
		c.hc = &http.Client{Transport: c.transport(), CheckRedirect: refuseRedirect}
	}
	return c, nil
}

// refuseRedirect stops net/http from following redirects: a signed request
// carries PSU identifiers and a signature and must go only where the
// caller sent it (docs/design.md section 2). A 3xx answer becomes a *Error.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// transport builds the SDK's own transport: TLS 1.2 or higher, the QWAC
// client certificate read per handshake (so [Client.SetQWAC] takes effect
// on new connections), no proxies from the environment unless the caller
// brings an http.Client.
func (c *Client) transport() *http.Transport {
	tlsCfg := &tls.Config{
		MinVersion:           tls.VersionTLS12,
		RootCAs:              c.cfg.rootCAs,
		GetClientCertificate: c.clientCertificate,
	}
	return &http.Transport{
		TLSClientConfig:       tlsCfg,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		// The client asks for identity (prepare); no transparent gzip.
		DisableCompression: true,
		// An answer's headers are bounded like its body (limits.go).
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
}

// BaseURL returns the bank's base URL the client was made with.
func (c *Client) BaseURL() string { return c.base.String() }

// Now returns the time on the client's clock ([WithClock], by default
// time.Now). It is the SDK's one clock: services read it to validate
// execution dates, to expire sessions and to count the without-PSU budget,
// and the client checks certificate validity against it. The Date header
// is written in the bank's time instead: this clock corrected by the
// offset the client learned from the bank's answers (docs/design.md
// section 2).
func (c *Client) Now() time.Time { return c.cfg.clock() }

// now is the client's clock corrected by the learned server clock offset:
// the time to write in Date. Certificate validity is checked against the
// local clock (c.cfg.clock), never this one.
func (c *Client) now() time.Time {
	return c.cfg.clock().Add(time.Duration(c.offset.Load()))
}

// isLoopback is the SDK's one loopback rule (internal/loopback), where
// plain http is allowed.
func isLoopback(host string) bool { return loopback.Host(host) }
