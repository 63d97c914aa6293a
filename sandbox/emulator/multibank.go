package emulator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/signing"
)

// MultiBank serves several banks at once on one loopback listener, one
// host name each: a request is routed by its Host to that bank's own
// [Server], with its own customers, accounts, payments, budgets and
// registered TPPs. All banks share one certificate authority, so one TPP
// certificate ([MultiBank.NewTPP]) is trusted by every bank, as a TPP's
// eIDAS certificate is on the platform.
//
// Host names are the caller's (for example "sr-bank.localhost"); they
// need not resolve: [MultiBank.Client] dials the listener for every one of
// them. A name under .localhost also works with curl, which resolves it to
// loopback itself.
type MultiBank struct {
	hosts  []string
	banks  map[string]*Server
	ts     *httptest.Server
	ca     *authority
	port   string
	client *http.Client
	once   sync.Once
}

var hostPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// NewMultiBank starts an emulator for each host, with opts applied to
// every bank; a [WithListener] option gives the one listener they share
// (by default a new one on a random loopback port). Hosts
// are lower-case DNS names, at least one, each once. Each bank's
// [Server.URL] is "https://<host>:<port>/api".
func NewMultiBank(hosts []string, opts ...Option) (*MultiBank, error) {
	if len(hosts) == 0 {
		return nil, errors.New("emulator: NewMultiBank: no host")
	}
	m := &MultiBank{banks: map[string]*Server{}}
	for _, h := range hosts {
		if !hostPattern.MatchString(h) || len(h) > 253 {
			return nil, fmt.Errorf("emulator: NewMultiBank: %q is not a lower-case host name", h)
		}
		if m.banks[h] != nil {
			return nil, fmt.Errorf("emulator: NewMultiBank: host %q twice", h)
		}
		s := newServer(opts...)
		if m.ca == nil {
			m.ca = s.ca
		}
		s.ca = m.ca // one authority: one TPP certificate for all banks
		m.banks[h] = s
		m.hosts = append(m.hosts, h)
	}
	leaf, err := m.ca.serverLeaf(hosts, m.banks[hosts[0]].wireNow())
	if err != nil {
		return nil, fmt.Errorf("emulator: NewMultiBank: %w", err)
	}
	first := m.banks[hosts[0]]
	m.ts = httptest.NewUnstartedServer(http.HandlerFunc(m.route))
	if first.listener != nil {
		_ = m.ts.Listener.Close()
		m.ts.Listener = first.listener
	}
	first.timeouts.configure(m.ts.Config, first.log)
	m.ts.TLS = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{leaf}}
	m.ts.StartTLS()
	_, m.port, _ = net.SplitHostPort(m.ts.Listener.Addr().String())
	for h, s := range m.banks {
		s.URL = "https://" + net.JoinHostPort(h, m.port) + apiPrefix
		s.clientOnce.Do(func() { s.client = m.Client() })
	}
	return m, nil
}

// serverLeaf issues a TLS server certificate for names and the loopback
// addresses.
func (a *authority) serverLeaf(names []string, now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	notBefore, notAfter := validity(now, 2)
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "psd2 emulator"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     append(slices.Clone(names), "localhost"),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der, a.cert.Raw}, PrivateKey: key}, nil
}

// route hands r to the bank of its host; another host gets 421
// Misdirected Request.
func (m *MultiBank) route(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	s := m.banks[strings.ToLower(host)]
	if s == nil {
		writeError(w, newError(http.StatusMisdirectedRequest, "NOT_FOUND", "No bank is served at this host."))
		return
	}
	s.handler.ServeHTTP(w, r)
}

// Hosts returns the banks' host names in the order given to
// [NewMultiBank].
func (m *MultiBank) Hosts() []string { return slices.Clone(m.hosts) }

// Bank returns the emulator of the bank at host, nil for another host.
// Use it as a single [Server] (Seed, Authorize, NewTPP of its own...);
// close the MultiBank, not the bank.
func (m *MultiBank) Bank(host string) *Server { return m.banks[host] }

// URL returns the API base URL of the bank at host,
// "https://<host>:<port>/api"; empty for another host.
func (m *MultiBank) URL(host string) string {
	if s := m.banks[host]; s != nil {
		return s.URL
	}
	return ""
}

// Addr is the listener's address (127.0.0.1:port), the address every host
// name stands for (curl --resolve <host>:<port>:127.0.0.1).
func (m *MultiBank) Addr() string { return m.ts.Listener.Addr().String() }

// CACertificate returns the certificate authority all banks share: it
// signed the TLS certificate and the TPP certificates.
func (m *MultiBank) CACertificate() *x509.Certificate { return m.ca.cert }

// NewTPP issues one TPP signing certificate for name and registers it
// with every bank, so one set of credentials reaches them all.
func (m *MultiBank) NewTPP(name string) (*signing.Credentials, error) {
	creds, err := m.banks[m.hosts[0]].NewTPP(name)
	if err != nil {
		return nil, err
	}
	for _, h := range m.hosts[1:] {
		m.banks[h].Trust(creds.Certificate)
	}
	return creds, nil
}

// Client returns an HTTP client (the same one each time) that trusts the
// banks' certificate authority and connects to the listener for every
// bank host (and refuses other hosts), without following redirects. Give
// it to the SDK with client.WithHTTPClient.
func (m *MultiBank) Client() *http.Client {
	m.once.Do(func() {
		pool := x509.NewCertPool()
		pool.AddCert(m.ca.cert)
		addr := m.ts.Listener.Addr().String()
		var d net.Dialer
		m.client = &http.Client{
			Transport: &http.Transport{
				TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
				ForceAttemptHTTP2: true,
				DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
					host, port, err := net.SplitHostPort(hostport)
					if err != nil || port != m.port || (m.banks[host] == nil && !isLoopbackName(host)) {
						return nil, fmt.Errorf("emulator: %s is not a bank of this MultiBank", hostport)
					}
					return d.DialContext(ctx, network, addr)
				},
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return m.client
}

func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close stops the listener and every bank, and blocks until all requests
// have finished.
func (m *MultiBank) Close() {
	m.once.Do(func() {})
	if m.client != nil {
		m.client.CloseIdleConnections()
	}
	m.ts.CloseClientConnections()
	m.ts.Close()
}

// ControlHandler returns the control API of every bank (see
// [Server.ControlHandler]): a request names its bank with ?bank=, the
// bank's host name or its first label ("alpha" for alpha.localhost).
func (m *MultiBank) ControlHandler(token string) http.Handler {
	banks := map[string]*Server{}
	var ids []string
	for _, h := range m.hosts {
		id, _, _ := strings.Cut(h, ".")
		banks[h] = m.banks[h]
		if banks[id] == nil {
			banks[id] = m.banks[h]
		}
		ids = append(ids, id)
	}
	return newControlAPI(token, banks, ids)
}
