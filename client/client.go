package client

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/signing"
)

// Client holds the TPP's credentials and the bank's base URL and carries
// every request of the typed services (payments, accounts, basket, sca,
// sandbox) through one pipeline: options, JSON body, X-Request-ID, Date,
// Digest, x-accept-fix, signature, retries that are safe for payments, and
// typed errors. A Client is safe for concurrent use.
type Client struct {
	base     *url.URL
	basePath string // base path without trailing slash, e.g. "/api"
	cfg      config
	hc       *http.Client
	state    atomic.Pointer[credState]
	offset   atomic.Int64 // learned server clock offset in nanoseconds
}

// credState is what the client signs with; it is swapped atomically by
// SetCredentials so that requests in flight finish with the old one.
type credState struct {
	creds   *signing.Credentials
	signer  *signing.Signer
	certB64 string
}

// New returns a Client for the bank at baseURL (for example
// "https://psd2.bank.example/api") signing with creds.
//
// baseURL must be https; http is accepted only for loopback hosts (the
// emulator, tests).
func New(baseURL string, creds *signing.Credentials, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || !u.IsAbs() {
		return nil, fmt.Errorf("client: invalid base URL %q", baseURL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, fmt.Errorf("client: base URL must use https (http only on loopback)")
		}
	default:
		return nil, fmt.Errorf("client: base URL must use https")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("client: base URL must not carry query, fragment or user info")
	}
	c := &Client{base: u, basePath: strings.TrimRight(u.EscapedPath(), "/")}
	c.cfg.retry = DefaultRetryPolicy
	c.cfg.clock = time.Now
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c.cfg); err != nil {
			return nil, err
		}
	}
	if err := c.SetCredentials(creds); err != nil {
		return nil, err
	}
	c.hc = c.cfg.httpClient
	if c.hc == nil {
		c.hc = &http.Client{Transport: c.transport()}
	}
	return c, nil
}

// transport builds the SDK's own transport: TLS 1.2 or higher, the QWAC
// client certificate when given, no proxies from the environment unless the
// caller brings an http.Client.
func (c *Client) transport() *http.Transport {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: c.cfg.rootCAs}
	if c.cfg.qwac != nil {
		tlsCfg.Certificates = []tls.Certificate{*c.cfg.qwac}
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
	}
}

// SetCredentials replaces the signing credentials at runtime. Requests in
// flight finish with the credentials they started with; later requests use
// the new ones.
func (c *Client) SetCredentials(creds *signing.Credentials) error {
	if creds == nil || creds.Certificate == nil || creds.Key == nil {
		return errors.New("client: credentials need a certificate and a key")
	}
	keyID := c.cfg.keyID
	if keyID == "" {
		keyID = signing.KeyID(creds.Certificate)
	}
	s, err := signing.NewSigner(creds.Key, keyID)
	if err != nil {
		return err
	}
	c.state.Store(&credState{creds: creds, signer: s, certB64: base64.StdEncoding.EncodeToString(creds.Certificate.Raw)})
	return nil
}

// Credentials returns the credentials the client signs with now.
func (c *Client) Credentials() *signing.Credentials { return c.state.Load().creds }

// BaseURL returns the bank's base URL the client was made with.
func (c *Client) BaseURL() string { return c.base.String() }

// now is the client's clock corrected by the learned server clock offset.
func (c *Client) now() time.Time {
	return c.cfg.clock().Add(time.Duration(c.offset.Load()))
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
