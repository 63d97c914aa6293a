package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// bank is what differs between the embedded emulator and a real bank's
// sandbox: how the PSU approves an SCA, and whether the payment batch can
// be run on demand. Everything else in the walk-through is the same code.
type bank interface {
	// approve has the PSU with customerNumber complete the SCA behind link
	// and returns the URL the bank sent the browser back to.
	approve(ctx context.Context, link, customerNumber string) (string, error)
	// runBatch runs the bank's payment batch now; errSkipped when the bank
	// runs it on its own schedule (5 times a day, docs/interface.md section 9.6).
	runBatch(ctx context.Context) error
	close()
}

// emulatorBank approves SCAs in-process through the emulator's own SCA page
// code, as a PSU typing the customer number would.
type emulatorBank struct{ s *emulator.Server }

func (b emulatorBank) approve(ctx context.Context, link, customerNumber string) (string, error) {
	u, err := b.s.Control().Authorize(ctx, link, customerNumber)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

func (b emulatorBank) runBatch(context.Context) error { b.s.Control().RunBatch(); return nil }
func (b emulatorBank) close()                         { b.s.Close() }

// emulatorRedirectURI is the TPP-Redirect-URI used against the emulator.
// Nothing listens there: Controls.Authorize returns the callback URL instead
// of sending a browser to it.
const emulatorRedirectURI = "https://tpp.example/callback"

// openEmulator starts the embedded emulator and issues a throwaway TPP
// certificate it trusts.
func openEmulator(r *reporter, cfg config) (bank, *client.Client, string, error) {
	var s *emulator.Server
	profile, err := emulator.ParseProfile(cfg.profile)
	if err != nil {
		return nil, nil, "", err
	}
	if err := r.step("emulator", func() (string, error) {
		s = emulator.NewServer(emulator.WithProfile(profile))
		r.apiPath = "/api"
		if cfg.hooks != nil && cfg.hooks.emulator != nil {
			cfg.hooks.emulator(s)
		}
		detail := "embedded bank sandbox listening on " + s.URL
		if cfg.profile != "" {
			detail += ", profile " + profile.String()
		}
		return detail, nil
	}); err != nil {
		return nil, nil, "", err
	}
	var c *client.Client
	if err := r.step("TPP certificate", func() (string, error) {
		creds, err := s.NewTPP("Quickstart TPP")
		if err != nil {
			return "", err
		}
		opts := []client.Option{client.WithHTTPClient(s.Client()), client.WithLogger(r.logger())}
		if profile.KeyIDs == emulator.KeyIDOpenSSL {
			// This bank verifies only OpenSSL's rendering of the issuer
			// (psd2 probe finds which a bank takes).
			opts = append(opts, client.WithKeyID(signing.KeyIDOpenSSL(creds.Certificate)))
		}
		c, err = client.New(s.URL, creds, opts...)
		if err != nil {
			return "", err
		}
		return "throwaway QSealC issued: " + creds.Certificate.Subject.CommonName +
			", valid until " + creds.Certificate.NotAfter.Format(time.DateOnly), nil
	}); err != nil {
		s.Close()
		return nil, nil, "", err
	}
	return emulatorBank{s: s}, c, emulatorRedirectURI, nil
}

// liveBank is a real bank's sandbox: the person running the quickstart
// opens the printed SCA link, and the quickstart catches the callback on
// the redirect URI with a small HTTP server.
type liveBank struct {
	r         *reporter
	srv       *http.Server
	callbacks chan string
	timeout   time.Duration
}

func (b *liveBank) approve(ctx context.Context, link, customerNumber string) (string, error) {
	b.r.note("open this link in a browser and log in as sandbox customer %s:", customerNumber)
	b.r.note("%s", link)
	b.r.note("waiting up to %s for the bank to redirect back ...", b.timeout)
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	select {
	case u := <-b.callbacks:
		return u, nil
	case <-ctx.Done():
		return "", fmt.Errorf("no SCA callback: %w", ctx.Err())
	}
}

func (b *liveBank) runBatch(context.Context) error { return errSkipped }

func (b *liveBank) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.srv.Shutdown(ctx)
}

// openLive loads the TPP's credentials, builds the client for cfg.baseURL
// and starts the callback listener on the redirect URI's host and port (or
// cfg.listen).
func openLive(r *reporter, cfg config) (bank, *client.Client, string, error) {
	var c *client.Client
	if err := r.step("TPP certificate", func() (string, error) {
		creds, err := loadCredentials(cfg)
		if err != nil {
			return "", err
		}
		u, err := url.Parse(cfg.baseURL)
		if err != nil {
			return "", err
		}
		r.apiPath = u.Path
		opts := []client.Option{client.WithLogger(r.logger())}
		switch {
		case cfg.caFile != "":
			pool, err := extraCA(cfg.caFile)
			if err != nil {
				return "", err
			}
			opts = append(opts, client.WithRootCAs(pool))
		case cfg.hooks != nil && cfg.hooks.rootCAs != nil:
			opts = append(opts, client.WithRootCAs(cfg.hooks.rootCAs))
		}
		c, err = client.New(cfg.baseURL, creds, opts...)
		if err != nil {
			return "", err
		}
		return "QSealC loaded: " + creds.Certificate.Subject.CommonName +
			", valid until " + creds.Certificate.NotAfter.Format(time.DateOnly), nil
	}); err != nil {
		return nil, nil, "", err
	}
	b := &liveBank{r: r, callbacks: make(chan string, 1), timeout: cfg.scaTimeout}
	if err := r.step("callback listener", func() (string, error) {
		u, err := url.Parse(cfg.redirectURI)
		if err != nil || u.Host == "" {
			return "", fmt.Errorf("-redirect-uri %q is not an absolute URL", cfg.redirectURI)
		}
		addr := cfg.listen
		if addr == "" {
			addr = u.Host
			if u.Port() == "" {
				port := "443"
				if u.Scheme == "http" {
					port = "80"
				}
				addr = net.JoinHostPort(u.Hostname(), port)
			}
		}
		var ln net.Listener
		if cfg.hooks != nil && cfg.hooks.listener != nil {
			ln = cfg.hooks.listener
		} else if ln, err = net.Listen("tcp", addr); err != nil {
			return "", err
		}
		path := u.Path
		if path == "" {
			path = "/"
		}
		mux := http.NewServeMux()
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Referrer-Policy", "no-referrer")
			select {
			case b.callbacks <- req.URL.RequestURI():
				fmt.Fprintln(w, "Thank you. Go back to the terminal: the quickstart goes on.")
			default:
				http.Error(w, "no SCA is waiting for this callback", http.StatusConflict)
			}
		})
		b.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = b.srv.Serve(ln) }()
		return "plain HTTP on " + ln.Addr().String() + " catches callbacks to " + u.Scheme + "://" + u.Host + path, nil
	}); err != nil {
		return nil, nil, "", err
	}
	return b, c, cfg.redirectURI, nil
}

// extraCA is the system's roots and the CA in file (-ca).
func extraCA(file string) (*x509.CertPool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("-ca %s: no PEM certificate", file)
	}
	return pool, nil
}

// loadCredentials reads -cert and -key (PEM) or -p12.
func loadCredentials(cfg config) (*signing.Credentials, error) {
	switch {
	case cfg.p12File != "":
		data, err := os.ReadFile(cfg.p12File)
		if err != nil {
			return nil, err
		}
		return signing.LoadPKCS12(data, cfg.p12Password)
	case cfg.certFile != "" && cfg.keyFile != "":
		certPEM, err := os.ReadFile(cfg.certFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := os.ReadFile(cfg.keyFile)
		if err != nil {
			return nil, err
		}
		return signing.LoadPEM(certPEM, keyPEM)
	default:
		return nil, errors.New("a real bank needs -cert and -key, or -p12")
	}
}
