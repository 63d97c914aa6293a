// Command quickstart walks through the whole SDK, one printed line per step
// with the HTTP status and the time it took.
//
// With no flags it starts the embedded bank sandbox (package
// sandbox/emulator), issues a throwaway TPP certificate, resets the sandbox
// and goes through: a bank-offered consent with SCA (approved automatically
// as the sandbox customer 13039319955), accounts, balances and transactions
// through the lazy iterator; a Norwegian domestic payment with SCA, the
// payment batch and its final status; a SEPA payment; a signing basket of
// two payments approved with one SCA; a corporate customer's accounts with
// PSU-Corporate-ID; and one validation error and one bank error as the
// typed errors a TPP handles. It exits 0 only when every step passed.
//
//	go run ./examples/quickstart
//
// With -base-url and the TPP's QSealC (-cert and -key, or -p12 and
// -p12-password) it runs the same walk-through against a real bank's
// sandbox. Each SCA then needs a person: the quickstart prints the link,
// the person opens it and logs in as the sandbox customer, and the
// quickstart catches the bank's redirect to -redirect-uri with a small
// HTTP server on that URI's host and port (or -listen), waiting at most
// -sca-timeout. The listener speaks plain HTTP: use an http://localhost
// redirect URI, or put a TLS proxy in front and point -listen at it.
//
//	go run ./examples/quickstart -base-url https://psd2.bank.example/api \
//	    -cert qseal.pem -key qseal.key -redirect-uri http://localhost:8765/callback
//
// A sandbox with a CA of its own, such as the one psd2 emulator serves,
// is trusted with -ca and the CA's PEM file:
//
//	go run ./examples/quickstart -base-url https://127.0.0.1:8443/api -ca ca.pem \
//	    -cert tpp-cert.pem -key tpp-key.pem -redirect-uri http://localhost:8765/callback
//
// -no-reset leaves the sandbox data as it is (the reset path,
// POST /v1/sandbox/initialize, is an assumption of the SDK). A reset
// drops the mock data, not the payments (docs/interface.md section 1),
// so every run tags its payments' remittance information with a run id
// of its own: the walk-through runs again and again against one
// sandbox, and the bank never refuses a payment of a later run as a
// logical duplicate of an earlier one.
package main

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator"
)

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// config is the command line. The zero config runs against the embedded
// emulator.
type config struct {
	baseURL     string
	certFile    string
	keyFile     string
	p12File     string
	p12Password string
	caFile      string
	redirectURI string
	listen      string
	customer    string
	scaTimeout  time.Duration
	noReset     bool
	profile     string // the embedded emulator's bank profile (emulator.ParseProfile)

	hooks *hooks // for tests; nil otherwise
}

// hooks let tests look inside a run: the emulator it started, and a real
// bank they stand in for.
type hooks struct {
	// emulator is called with the embedded emulator once it started.
	emulator func(*emulator.Server)
	// rootCAs is trusted for the live bank's TLS certificate.
	rootCAs *x509.CertPool
	// listener, when set, is used for the live callback listener.
	listener net.Listener
}

// live reports whether cfg points at a real bank instead of the emulator.
func (cfg config) live() bool { return cfg.baseURL != "" }

// defaultCustomer is the sandbox's first default private customer
// (docs/interface.md section 10 "Session model"), the one who approves the consent and the
// payments.
const defaultCustomer = "13039319955"

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.baseURL, "base-url", "", "API base URL of a real bank's sandbox (default: the embedded emulator)")
	fs.StringVar(&cfg.certFile, "cert", "", "PEM file of the TPP's QSealC (with -key)")
	fs.StringVar(&cfg.keyFile, "key", "", "PEM file of the QSealC's private key")
	fs.StringVar(&cfg.p12File, "p12", "", "PKCS#12 file with the QSealC and its key (instead of -cert and -key)")
	fs.StringVar(&cfg.p12Password, "p12-password", "", "password of the -p12 file")
	fs.StringVar(&cfg.caFile, "ca", "", "PEM file of the CA of a sandbox with its own (such as psd2 emulator's ca.pem), trusted besides the system's")
	fs.StringVar(&cfg.redirectURI, "redirect-uri", "", "TPP-Redirect-URI registered for the TPP; the quickstart listens there for the SCA callback")
	fs.StringVar(&cfg.listen, "listen", "", "address for the callback listener (default: the redirect URI's host and port)")
	fs.StringVar(&cfg.customer, "customer", defaultCustomer, "sandbox customer number of the private PSU")
	fs.StringVar(&cfg.profile, "profile", "", "the embedded emulator's bank profile, e.g. consent=180,create=start-authorisation,keyid=openssl (docs/emulator.md)")
	fs.BoolVar(&cfg.noReset, "no-reset", false, "do not reset the sandbox first (its path, POST /v1/sandbox/initialize, is an assumption)")
	fs.DurationVar(&cfg.scaTimeout, "sca-timeout", 5*time.Minute, "how long to wait for each SCA callback from a real bank")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if !cfg.live() {
		if cfg.certFile != "" || cfg.keyFile != "" || cfg.p12File != "" || cfg.redirectURI != "" || cfg.caFile != "" {
			return config{}, errors.New("-cert, -key, -p12, -ca and -redirect-uri need -base-url")
		}
		if _, err := emulator.ParseProfile(cfg.profile); err != nil {
			return config{}, err
		}
		return cfg, nil
	}
	if cfg.profile != "" {
		return config{}, errors.New("-profile is the embedded emulator's; a real bank has its own")
	}
	if cfg.redirectURI == "" {
		return config{}, errors.New("-base-url needs -redirect-uri")
	}
	if cfg.p12File == "" && (cfg.certFile == "" || cfg.keyFile == "") {
		return config{}, errors.New("-base-url needs -cert and -key, or -p12")
	}
	if cfg.scaTimeout <= 0 {
		return config{}, errors.New("-sca-timeout must be positive")
	}
	return cfg, nil
}
