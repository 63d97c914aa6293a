package emulator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
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

// MultiBank serves several banks at once, as the platform's banks each
// have their own host: every bank is a [Server] of its own (customers,
// accounts, payments, budgets, registered TPPs, [Profile]), with default
// data of its own (its own bank code in the BBANs, its own resource ids:
// no two banks share an account), and all share one certificate
// authority, so one TPP certificate ([MultiBank.NewTPP]) is trusted by
// every bank, as a TPP's eIDAS certificate is on the platform.
//
// Each bank listens on a loopback port of its own: [MultiBank.URL] is
// "https://127.0.0.1:<port>/api", which any program on the machine
// reaches without name resolution. The banks are also served by host
// name on one shared listener ([MultiBank.Addr], [MultiBank.HostURL]),
// routed by the request's Host: names under .localhost work with curl,
// which resolves them itself, and [MultiBank.Client] dials every name.
type MultiBank struct {
	hosts  []string
	banks  map[string]*Server
	ts     *httptest.Server // the shared host-name listener
	ca     *authority
	port   string
	addrs  map[string]string // port -> listener address, for Client's dialer
	client *http.Client
	once   sync.Once
}

// maxBanks bounds the banks of a MultiBank: each is a whole server with
// its default data and a listener, and each takes one of the 9,000 bank
// codes of its BBANs (bankDefaults would look for a free one for ever
// past them).
const maxBanks = 256

var hostPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`) // labels of at most 63 (RFC 1035)

// NewMultiBank starts an emulator for each host, with opts applied to
// every bank; a [WithListener] option gives the shared host-name
// listener (by default a new one on a random loopback port), and each
// bank gets a listener of its own on a random port of the same address.
// Hosts are lower-case DNS names, at least one and at most 256, each
// once.
func NewMultiBank(hosts []string, opts ...Option) (*MultiBank, error) {
	if len(hosts) == 0 {
		return nil, errors.New("emulator: NewMultiBank: no host")
	}
	if len(hosts) > maxBanks {
		return nil, fmt.Errorf("emulator: NewMultiBank: %d hosts, at most %d", len(hosts), maxBanks)
	}
	m := &MultiBank{banks: map[string]*Server{}, addrs: map[string]string{}}
	codes := map[string]bool{}
	for _, h := range hosts {
		if !hostPattern.MatchString(h) || len(h) > 253 {
			return nil, fmt.Errorf("emulator: NewMultiBank: %q is not a lower-case host name", h)
		}
		if m.banks[h] != nil {
			return nil, fmt.Errorf("emulator: NewMultiBank: host %q twice", h)
		}
		// A bank's id is its host's first label (DirectoryJSON, the
		// control API's ?bank=): two banks must not share one.
		id, _, _ := strings.Cut(h, ".")
		if other := slices.IndexFunc(m.hosts, func(o string) bool { o, _, _ = strings.Cut(o, "."); return o == id }); other >= 0 {
			return nil, fmt.Errorf("emulator: NewMultiBank: hosts %q and %q share the bank id %q (the first label)", m.hosts[other], h, id)
		}
		s := newServer(append([]Option{withDefaults(bankDefaults(h, codes))}, opts...)...)
		s.host = h
		if m.ca == nil {
			m.ca = s.ca
		}
		s.ca = m.ca // one authority: one TPP certificate for all banks
		m.banks[h] = s
		m.hosts = append(m.hosts, h)
	}
	first := m.banks[hosts[0]]
	leaf, err := m.ca.serverLeaf(hosts, first.wireNow())
	if err != nil {
		return nil, fmt.Errorf("emulator: NewMultiBank: %w", err)
	}
	m.ts = httptest.NewUnstartedServer(http.HandlerFunc(m.route))
	if first.listener != nil {
		_ = m.ts.Listener.Close()
		m.ts.Listener = first.listener
	}
	first.timeouts.configure(m.ts.Config, first.log)
	m.ts.TLS = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{leaf}}
	m.ts.StartTLS()
	shared := m.ts.Listener.Addr().String()
	ip, port, _ := net.SplitHostPort(shared)
	m.port, m.addrs[port] = port, shared
	for _, h := range hosts {
		s := m.banks[h]
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("emulator: NewMultiBank: %w", err)
		}
		s.serve(l, leaf)
		addr := l.Addr().String()
		_, p, _ := net.SplitHostPort(addr)
		m.addrs[p] = addr
		s.URL = "https://" + net.JoinHostPort(urlIP(ip), p) + apiPrefix
		s.clientOnce.Do(func() { s.client = m.Client() })
	}
	return m, nil
}

// urlIP is the host to write in a URL for a listener on ip: loopback for
// an unspecified address (all interfaces).
func urlIP(ip string) string {
	if a := net.ParseIP(ip); a == nil || a.IsUnspecified() {
		return "127.0.0.1"
	}
	return ip
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

// URL returns the API base URL of the bank at host on its own listener,
// "https://127.0.0.1:<port>/api", which needs no name resolution; empty
// for another host.
func (m *MultiBank) URL(host string) string {
	if s := m.banks[host]; s != nil {
		return s.URL
	}
	return ""
}

// HostURL returns the API base URL of the bank at host on the shared
// listener, by its host name: "https://<host>:<port>/api"; empty for
// another host. The name must resolve to the listener's address (a name
// under .localhost does for curl; [MultiBank.Client] dials it whatever).
func (m *MultiBank) HostURL(host string) string {
	if m.banks[host] == nil {
		return ""
	}
	return "https://" + net.JoinHostPort(host, m.port) + apiPrefix
}

// Addr is the shared listener's address (127.0.0.1:port), the address
// every host name stands for (curl --resolve <host>:<port>:127.0.0.1).
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
// banks' certificate authority and connects to the banks' listeners, by
// loopback address or by bank host name (and refuses other hosts and
// ports), without following redirects. Give it to the SDK with
// client.WithHTTPClient.
func (m *MultiBank) Client() *http.Client {
	m.once.Do(func() {
		pool := x509.NewCertPool()
		pool.AddCert(m.ca.cert)
		var d net.Dialer
		m.client = &http.Client{
			Transport: &http.Transport{
				TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
				ForceAttemptHTTP2: true,
				DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
					host, port, err := net.SplitHostPort(hostport)
					addr := m.addrs[port]
					if err != nil || addr == "" || (m.banks[host] == nil && !isLoopbackName(host)) {
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

// Close stops the listeners and every bank, and blocks until all
// requests have finished.
func (m *MultiBank) Close() {
	m.once.Do(func() {})
	if m.client != nil {
		m.client.CloseIdleConnections()
	}
	m.ts.CloseClientConnections()
	for _, s := range m.banks {
		s.Close()
	}
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

// DirectoryJSON describes the banks as a bank directory whose entries
// point at the emulator, in the JSON form package banks reads: give it to
// banks.Parse (and Directory.Merge) and directory-driven code runs
// unchanged against the emulator. Each bank's id is its host's first
// label ("alpha" for alpha.localhost), its name the host, its sandbox URL
// its [MultiBank.URL] (a loopback address: works from any program) and
// its production URL its [MultiBank.HostURL] (the host name on the shared
// listener), since a directory refuses one URL for both environments
// (each is a scope of its own); use banks.Sandbox. consentDays says its
// [Profile]'s consent validity when that is not the default.
//
// The emulator imports only the signing and money packages (it checks the
// wire, not the SDK), so it gives the directory as the JSON package banks
// reads rather than a banks.Directory.
func (m *MultiBank) DirectoryJSON() []byte {
	type entry struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Group       string `json:"group"`
		Production  string `json:"production"`
		Sandbox     string `json:"sandbox"`
		Notes       string `json:"notes,omitempty"`
		ConsentDays int    `json:"consentDays,omitempty"`
		Source      string `json:"source"`
		Verified    string `json:"verified"`
	}
	out := struct {
		Banks []entry `json:"banks"`
	}{Banks: []entry{}}
	for _, h := range m.hosts {
		s := m.banks[h]
		id, _, _ := strings.Cut(h, ".")
		e := entry{ID: id, Name: h, Group: "other", Production: m.HostURL(h), Sandbox: s.URL,
			Notes: "psd2 emulator, profile " + s.Control().Profile().String(), Source: "psd2 emulator",
			Verified: s.wireNow().UTC().Format(time.DateOnly)}
		if days := s.Control().Profile().ConsentDays; days > 0 && days != int(consentValidity/(24*time.Hour)) {
			e.ConsentDays = days
		}
		out.Banks = append(out.Banks, e)
	}
	b, _ := json.Marshal(out) // strings and ints only: cannot fail
	return b
}
