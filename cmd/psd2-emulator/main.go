// Command psd2-emulator runs the SDK's bank sandbox (package
// github.com/tppkit/psd2/sandbox/emulator) standalone, for TPPs that want
// to point other tools at it.
//
// Usage:
//
//	psd2-emulator [-addr 127.0.0.1:8443] [-out ./psd2-emulator] [-tpp "Local TPP"] [-trust cert.pem] [-known-issues=true]
//
// It writes the emulator's CA certificate (ca.pem, to trust its TLS
// certificate) to the -out directory. Unless -trust names PEM files of TPP
// signing certificates to register instead, it also issues a TPP
// certificate and key (tpp-cert.pem, tpp-key.pem, mode 0600) that the
// emulator trusts. It prints the API base URL and runs until interrupted.
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
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tppkit/psd2/sandbox/emulator"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "psd2-emulator:", err)
		os.Exit(1)
	}
}

// config holds the command line.
type config struct {
	addr        string
	out         string
	tpp         string
	trust       []string
	knownIssues bool
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("psd2-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "listen address (loopback; port 0 picks a free port)")
	fs.StringVar(&cfg.out, "out", "psd2-emulator", "directory for ca.pem and the generated TPP credentials")
	fs.StringVar(&cfg.tpp, "tpp", "Local TPP", "name of the TPP certificate to generate (ignored with -trust)")
	fs.Func("trust", "PEM file of a TPP signing certificate to trust (repeatable)", func(v string) error {
		cfg.trust = append(cfg.trust, v)
		return nil
	})
	fs.BoolVar(&cfg.knownIssues, "known-issues", true, "reproduce the known issues of the bank's interface")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return cfg, nil
}

// run starts the server, writes the files, prints the URL and waits for
// ctx or a signal.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, os.Stderr)
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
	l, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	s := emulator.NewServer(emulator.WithListener(l), emulator.WithKnownIssues(cfg.knownIssues),
		emulator.WithTrustedCertificates(trusted...))
	defer s.Close()

	if err := os.MkdirAll(cfg.out, 0o700); err != nil {
		return err
	}
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

func writePEM(file, typ string, der []byte, mode os.FileMode) error {
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode); err != nil {
		return err
	}
	return os.Chmod(file, mode)
}
