package emulatorcmd

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tppkit/psd2/internal/boundedfile"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// Running is a started emulator and the files it wrote.
type Running struct {
	// URLs maps each bank to its API base URL: the host name given to
	// [Start], or "emulator" for the single bank.
	URLs map[string]string
	// Addr is the listener's address.
	Addr string
	// CA is the file of the emulator's CA certificate.
	CA string
	// TPPCert and TPPKey are the generated TPP credentials' files (empty
	// with -trust).
	TPPCert, TPPKey string
	// Trusted counts the certificates registered from -trust files.
	Trusted int
	// Control is the control API's address and token, with -control
	// (also in control.json in the -out directory, ControlFile).
	Control *ControlInfo
	// BanksFile is the bank directory of several banks (banks.json in
	// the -out directory, for -banks-file): each bank's URL on its own
	// loopback port. Empty for one bank.
	BanksFile string
	// HostURLs maps each of several banks to its URL by host name on the
	// shared listener (Addr).
	HostURLs map[string]string

	close func()
	fails *failures
}

// Close stops the server.
func (r *Running) Close() { r.close() }

// Stopped is the first failure after which a server no longer serves
// (matching [ErrStopped]) reported since Start, or nil: a command checks
// it before it says the emulator is ready, and Wait ends with it.
func (r *Running) Stopped() error { return r.fails.firstStop() }

// Failures yields each error of the servers after Start, as it happens:
// a listener that failed (matching [ErrStopped]: that server no longer
// serves; the bank's, also after an outage opened it again, or with
// several banks each bank's own and the shared one), the control API's
// server that stopped (ErrStopped too), a banks.json the control API
// could not rewrite after a control (the control's caller got a 500
// saying so; the emulator still serves). Whoever runs the emulator
// reports them and must not end as if all went well after one.
func (r *Running) Failures() <-chan error { return r.fails.ch }

// Start reads the -trust files, makes the -out directory safe before
// anything listens (see prepareOut), listens on cfg.Addr (checking a
// resolved name is loopback without -public) and serves one bank, or one
// bank per host name on that listener when hosts are given. It writes
// ca.pem and, without -trust, tpp-cert.pem and tpp-key.pem (mode 0600),
// never through a symbolic link. It holds the lock of the -out directory
// (LockFile) until Close: a second Start on a directory a running
// emulator holds is refused before it writes anything. cfg must have
// passed [Config.Check].
func Start(cfg *Config, hosts []string) (*Running, error) {
	var trusted []*x509.Certificate
	for _, f := range cfg.Trust {
		certs, err := readCertificates(f)
		if err != nil {
			return nil, err
		}
		trusted = append(trusted, certs...)
	}
	if err := prepareOut(cfg.Out); err != nil {
		return nil, err
	}
	unlock, err := lockOut(cfg.Out)
	if err != nil {
		return nil, err
	}
	r, err := start(cfg, hosts, trusted)
	if err != nil {
		unlock()
		return nil, err
	}
	stop := r.close
	r.close = func() { stop(); unlock() }
	return r, nil
}

// LockFile is the lock of the -out directory, held while an emulator runs
// on it (on systems with flock; see lockOut).
const LockFile = "emulator.lock"

// start is Start once the -out directory is prepared and locked.
func start(cfg *Config, hosts []string, trusted []*x509.Certificate) (*Running, error) {
	l, err := listen(cfg)
	if err != nil {
		return nil, err
	}
	fails := newFailures()
	if len(hosts) > 0 {
		// The shared listener, served as it is. One bank's is watched
		// by the server (WithStopReport below), outside its outage
		// gate: an outage that shuts the socket listens again on a new
		// one, which a wrapper of the first would not see.
		l = watchedListener{Listener: l, what: "the banks' listener", f: fails}
	}
	opts := []emulator.Option{emulator.WithListener(l),
		emulator.WithTrustedCertificates(trusted...), emulator.WithTimeouts(cfg.Timeouts), emulator.WithLimits(cfg.Limits)}
	if cfg.KnownIssues != nil {
		opts = append(opts, emulator.WithKnownIssues(*cfg.KnownIssues))
	}
	r := &Running{URLs: map[string]string{}, Trusted: len(trusted), fails: fails}
	var ca *x509.Certificate
	var newTPP func(string) (*signing.Credentials, error)
	var control func(token string) http.Handler
	var directory func() []byte // several banks: the bank directory
	profile := func(id string) (emulator.Profile, error) {
		return emulator.ParseProfile(cfg.Profiles[""] + "," + cfg.Profiles[id])
	}
	if err := checkProfileIDs(cfg, hosts); err != nil {
		_ = l.Close()
		return nil, err
	}
	if len(hosts) == 0 {
		p, err := profile("")
		if err != nil {
			_ = l.Close()
			return nil, UsageError{err}
		}
		stopped := emulator.WithStopReport(func(_ string, err error) {
			fails.report(fmt.Errorf("%w: the bank's listener: %w", ErrStopped, err))
		})
		s := emulator.NewServer(append(opts, emulator.WithProfile(p), stopped)...)
		r.close, ca, newTPP, control = s.Close, s.CACertificate(), s.NewTPP, s.ControlHandler
		r.URLs["emulator"], r.Addr = s.URL, l.Addr().String()
	} else {
		// Each bank's own listener is watched as the shared one is: a
		// bank whose server stopped ends the command (ErrStopped).
		stopped := emulator.WithStopReport(func(host string, err error) {
			fails.report(fmt.Errorf("%w: bank %s's listener (%s): %w", ErrStopped, bankID(host), host, err))
		})
		m, err := emulator.NewMultiBank(hosts, append(opts, stopped)...)
		if err != nil {
			_ = l.Close()
			return nil, UsageError{err}
		}
		r.close, ca, newTPP, control = m.Close, m.CACertificate(), m.NewTPP, m.ControlHandler
		r.HostURLs = map[string]string{}
		for _, h := range hosts {
			r.URLs[h], r.HostURLs[h] = m.URL(h), m.HostURL(h)
			p, err := profile(bankID(h))
			if err == nil {
				err = m.Bank(h).Control().SetProfile(p)
			}
			if err != nil {
				m.Close()
				return nil, UsageError{err}
			}
		}
		r.Addr = m.Addr()
		directory = m.DirectoryJSON
	}
	if err := r.write(cfg, ca, newTPP, len(trusted) == 0); err != nil {
		r.Close()
		return nil, err
	}
	if directory != nil {
		r.BanksFile = filepath.Join(cfg.Out, BanksFile)
		dir := &directoryFile{path: r.BanksFile, describe: directory, fails: fails}
		if err := dir.write(); err != nil {
			r.Close()
			return nil, err
		}
		inner := control
		control = func(token string) http.Handler { return dir.rewriteAfter(inner(token)) }
	}
	if cfg.Control != "" {
		info, stop, err := startControl(cfg, control, fails)
		if err != nil {
			r.Close()
			return nil, err
		}
		bank := r.close
		r.Control, r.close = &info, func() { stop(); bank() }
	}
	return r, nil
}

func (r *Running) write(cfg *Config, ca *x509.Certificate, newTPP func(string) (*signing.Credentials, error), generate bool) error {
	r.CA = filepath.Join(cfg.Out, "ca.pem")
	if err := writePEM(r.CA, "CERTIFICATE", ca.Raw, 0o644); err != nil {
		return err
	}
	if !generate {
		return nil
	}
	creds, err := newTPP(cfg.TPP)
	if err != nil {
		return err
	}
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	if err != nil {
		return err
	}
	r.TPPCert, r.TPPKey = filepath.Join(cfg.Out, "tpp-cert.pem"), filepath.Join(cfg.Out, "tpp-key.pem")
	if err := writePEM(r.TPPCert, "CERTIFICATE", creds.Certificate.Raw, 0o644); err != nil {
		return err
	}
	return writePEM(r.TPPKey, "PRIVATE KEY", key, 0o600)
}

// Customers is the line naming the default customers both commands print.
func Customers() string {
	return fmt.Sprintf("customers: %s, %s (private); %s, %s (corporate)",
		emulator.CustomerKari, emulator.CustomerOla, emulator.CustomerFjordlys, emulator.CustomerTestfirma)
}

// listen opens the listener and, without -public, checks that the address
// it got ("localhost" is resolved by the system) is a loopback one.
func listen(cfg *Config) (net.Listener, error) {
	l, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	if ta, ok := l.Addr().(*net.TCPAddr); !cfg.Public && (!ok || !ta.IP.IsLoopback()) {
		_ = l.Close()
		return nil, UsageError{fmt.Errorf("-addr %q resolved to %s, which is not a loopback address; pass -public to listen on it", cfg.Addr, l.Addr())}
	}
	return l, nil
}

// maxCertificateFile bounds a certificate file the emulator reads (a
// chain is a few KiB, a CA bundle some hundreds): a device or a mistaken
// file named there is refused, not read whole.
const maxCertificateFile = 1 << 20

func readCertificates(file string) ([]*x509.Certificate, error) {
	data, err := boundedfile.Read(file, maxCertificateFile)
	if err != nil {
		return nil, err
	}
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New(file + ": no PEM certificate")
	}
	return out, nil
}

// BanksFile is the name of the bank directory of several banks in the
// -out directory.
const BanksFile = "banks.json"

// bankID is the id of the bank at host: its first label.
func bankID(host string) string {
	id, _, _ := strings.Cut(host, ".")
	return id
}

// checkProfileIDs refuses a -profile for a bank that is not served.
func checkProfileIDs(cfg *Config, hosts []string) error {
	for id := range cfg.Profiles {
		if id == "" {
			continue
		}
		if !slices.ContainsFunc(hosts, func(h string) bool { return bankID(h) == id }) {
			return UsageError{fmt.Errorf("-profile %s: no bank %q is served (-banks)", id, id)}
		}
	}
	return nil
}
