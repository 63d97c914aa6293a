// Command psd2-emulator runs the SDK's bank sandbox (package
// github.com/tppkit/psd2/sandbox/emulator) standalone, for TPPs that want
// to point other tools at it.
//
// Usage:
//
//	psd2-emulator [-addr 127.0.0.1:8443] [-public] [-out ./psd2-emulator] [-tpp "Local TPP"] [-trust cert.pem]
//	              [-known-issues[=false]] [-read-header-timeout 10s] [-read-timeout 30s] [-write-timeout 1m]
//	              [-idle-timeout 2m] [-limit payments=100000]
//
// It writes the emulator's CA certificate (ca.pem, to trust its TLS
// certificate) to the -out directory. Unless -trust names PEM files of TPP
// signing certificates to register instead, it also issues a TPP
// certificate and key (tpp-cert.pem, tpp-key.pem, mode 0600) that the
// emulator trusts. The -out directory is made with mode 0700; one that is
// a symbolic link, belongs to another user or can be written by other
// users is refused, and the files are written without following a
// symbolic link (a new file renamed into place). It prints the API base URL and runs until interrupted.
//
// It is a network server and behaves like one:
//
//   - It listens on the loopback interface only. An -addr that is not a
//     loopback IP address or "localhost" (such as ":8443" or
//     "0.0.0.0:8443") is refused with exit status 2 unless -public is
//     given: the emulator has no access control beyond TPP certificates it
//     issued itself, and its TLS certificate names only 127.0.0.1, ::1 and
//     localhost.
//   - Slow and idle connections are closed after the -read-header-timeout,
//     -read-timeout, -write-timeout and -idle-timeout (defaults from
//     emulator.DefaultTimeouts; 0 switches one off).
//   - Its state is capped (emulator.DefaultLimits); -limit name=N, repeatable,
//     sets one cap (names: customers, accounts, agreements, transactions,
//     payments, baskets, authorisations, sessions). Past a cap a request
//     gets 507 Insufficient Storage with code SYSTEM_ERROR.
//
// Exit status: 0 after an interrupt or for -h; 2 for a command-line error;
// 1 for any other error.
package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator"
)

func main() {
	os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// usageError is a command-line mistake (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode reports err on stderr and returns the exit status: 0 for nil
// and for -h (the flag package has printed the usage), 2 for a
// command-line error, 1 otherwise.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "psd2-emulator:", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// config holds the command line.
type config struct {
	addr        string
	public      bool
	out         string
	tpp         string
	trust       []string
	knownIssues *bool // nil: the emulator's default, the bank's sandbox
	timeouts    emulator.Timeouts
	limits      emulator.Limits
}

// limitFields maps the names -limit takes to the fields of l.
func limitFields(l *emulator.Limits) map[string]*int {
	return map[string]*int{
		"customers":      &l.Customers,
		"accounts":       &l.Accounts,
		"agreements":     &l.Agreements,
		"transactions":   &l.Transactions,
		"payments":       &l.Payments,
		"baskets":        &l.Baskets,
		"authorisations": &l.Authorisations,
		"sessions":       &l.Sessions,
	}
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("psd2-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "listen address (loopback unless -public; port 0 picks a free port)")
	fs.BoolVar(&cfg.public, "public", false, "allow an -addr that is not loopback (reachable from other machines)")
	fs.StringVar(&cfg.out, "out", "psd2-emulator", "directory for ca.pem and the generated TPP credentials")
	fs.StringVar(&cfg.tpp, "tpp", "Local TPP", "name of the TPP certificate to generate (ignored with -trust)")
	fs.Func("trust", "PEM file of a TPP signing certificate to trust (repeatable)", func(v string) error {
		cfg.trust = append(cfg.trust, v)
		return nil
	})
	fs.BoolFunc("known-issues", "true: behave as the production platform, with all its known issues; false: with none (default: as the bank's sandbox, which has only some)", func(v string) error {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		cfg.knownIssues = &on
		return nil
	})
	d := emulator.DefaultTimeouts
	fs.DurationVar(&cfg.timeouts.ReadHeader, "read-header-timeout", d.ReadHeader, "close a connection whose TLS handshake and request headers take longer (0: off)")
	fs.DurationVar(&cfg.timeouts.Read, "read-timeout", d.Read, "close a connection whose request takes longer to read (0: off)")
	fs.DurationVar(&cfg.timeouts.Write, "write-timeout", d.Write, "give up an answer not written within this time after the request headers (0: off)")
	fs.DurationVar(&cfg.timeouts.Idle, "idle-timeout", d.Idle, "close a keep-alive connection idle for longer (0: off)")
	fields := limitFields(&cfg.limits)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	fs.Func("limit", "cap on stored state as name=N (repeatable; names: "+strings.Join(names, ", ")+")", func(v string) error {
		name, num, ok := strings.Cut(v, "=")
		p := fields[strings.ToLower(strings.TrimSpace(name))]
		if !ok || p == nil {
			return fmt.Errorf("want name=N with a name among %s", strings.Join(names, ", "))
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || n <= 0 {
			return errors.New("the limit must be a positive integer")
		}
		*p = n
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{err}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	if err := checkAddr(cfg.addr, cfg.public); err != nil {
		return nil, usageError{err}
	}
	for _, t := range []*time.Duration{&cfg.timeouts.ReadHeader, &cfg.timeouts.Read, &cfg.timeouts.Write, &cfg.timeouts.Idle} {
		if *t <= 0 {
			*t = -1 // off (zero would mean the default to the emulator)
		}
	}
	return cfg, nil
}

// checkAddr refuses a listen address that is not on the loopback interface
// unless public is set. Loopback means a loopback IP literal or the name
// "localhost"; an empty host (all interfaces) and any other name are not.
func checkAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if public || isLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("-addr %q is not a loopback address; the emulator is a test bank that trusts certificates it issues itself, "+
		"so it listens on 127.0.0.1, ::1 or localhost only. Pass -public to listen on %q anyway", addr, addr)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// listen opens the listener and, without -public, checks that the address
// it got ("localhost" is resolved by the system) is a loopback one.
func listen(cfg *config) (net.Listener, error) {
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, err
	}
	if ta, ok := l.Addr().(*net.TCPAddr); !cfg.public && (!ok || !ta.IP.IsLoopback()) {
		_ = l.Close()
		return nil, usageError{fmt.Errorf("-addr %q resolved to %s, which is not a loopback address; pass -public to listen on it", cfg.addr, l.Addr())}
	}
	return l, nil
}

// run starts the server, writes the files, prints the URL and waits for
// ctx or a signal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	var trusted []*x509.Certificate
	for _, f := range cfg.trust {
		certs, err := readCertificates(f)
		if err != nil {
			return err
		}
		trusted = append(trusted, certs...)
	}
	if err := prepareOut(cfg.out); err != nil { // outdir.go: before anything listens
		return err
	}
	l, err := listen(cfg)
	if err != nil {
		return err
	}
	opts := []emulator.Option{emulator.WithListener(l),
		emulator.WithTrustedCertificates(trusted...), emulator.WithTimeouts(cfg.timeouts), emulator.WithLimits(cfg.limits)}
	if cfg.knownIssues != nil {
		opts = append(opts, emulator.WithKnownIssues(*cfg.knownIssues))
	}
	s := emulator.NewServer(opts...)
	defer s.Close()

	caFile := filepath.Join(cfg.out, "ca.pem")
	if err := writePEM(caFile, "CERTIFICATE", s.CACertificate().Raw, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "psd2 emulator listening\n  URL:      %s\n  CA:       %s\n", s.URL, caFile)
	if len(trusted) > 0 {
		fmt.Fprintf(stdout, "  trusting: %d TPP certificate(s)\n", len(trusted))
	} else {
		creds, err := s.NewTPP(cfg.tpp)
		if err != nil {
			return err
		}
		key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
		if err != nil {
			return err
		}
		certFile, keyFile := filepath.Join(cfg.out, "tpp-cert.pem"), filepath.Join(cfg.out, "tpp-key.pem")
		if err := writePEM(certFile, "CERTIFICATE", creds.Certificate.Raw, 0o644); err != nil {
			return err
		}
		if err := writePEM(keyFile, "PRIVATE KEY", key, 0o600); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  TPP cert: %s\n  TPP key:  %s\n", certFile, keyFile)
	}
	fmt.Fprintf(stdout, "  customers: %s, %s (private); %s, %s (corporate)\n",
		emulator.CustomerKari, emulator.CustomerOla, emulator.CustomerFjordlys, emulator.CustomerTestfirma)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

func readCertificates(file string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(file)
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
