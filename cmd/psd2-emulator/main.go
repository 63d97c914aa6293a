// Command psd2-emulator runs the SDK's bank sandbox (package
// github.com/tppkit/psd2/sandbox/emulator) standalone, for TPPs that want
// to point other tools at it.
//
// Usage:
//
//	psd2-emulator [-addr 127.0.0.1:8443] [-public] [-out ./psd2-emulator] [-tpp "Local TPP"] [-trust cert.pem]
//	              [-known-issues[=false]] [-read-header-timeout 10s] [-read-timeout 30s] [-write-timeout 1m]
//	              [-idle-timeout 2m] [-limit payments=100000] [-control 127.0.0.1:0]
//
// It writes the emulator's CA certificate (ca.pem, to trust its TLS
// certificate) to the -out directory. Unless -trust names PEM files of TPP
// signing certificates to register instead, it also issues a TPP
// certificate and key (tpp-cert.pem, tpp-key.pem, mode 0600) that the
// emulator trusts. The -out directory is made with mode 0700; one that is
// a symbolic link, belongs to another user or can be written by other
// users is refused, and the files are written without following a
// symbolic link (a new file renamed into place). While it runs it holds
// the -out directory (a lock on emulator.lock there): a second emulator
// started on it is refused before it writes anything. It prints the API
// base URL and runs until interrupted.
//
// With -control it also serves the control API (the emulator's scenario
// and clock controls as JSON, docs/emulator.md) on a loopback listener of
// its own, guarded by a random token it prints and writes, with the URL,
// to control.json in the -out directory (mode 0600). The bank's listener
// never serves a control.
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
// 1 for any other error, a failure while it served too (a listener that
// failed: it then ends at once, without printing the URL when that was
// before it was ready).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

func main() {
	os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// exitCode reports err on stderr and returns the exit status: 0 for nil
// and for -h (the flag package has printed the usage), 2 for a
// command-line error, 1 otherwise.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "psd2-emulator:", err)
	var ue emulatorcmd.UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// parseFlags parses the command line (the flags of package emulatorcmd,
// which "psd2 emulator" shares).
func parseFlags(args []string, stderr io.Writer) (*emulatorcmd.Config, error) {
	fs := flag.NewFlagSet("psd2-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := emulatorcmd.Register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, emulatorcmd.UsageError{Err: err}
	}
	if fs.NArg() > 0 {
		return nil, emulatorcmd.UsageError{Err: fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
	}
	return cfg, cfg.Check()
}

// run starts the server, writes the files, prints the URL and waits for
// ctx or a signal.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	r, err := emulatorcmd.Start(cfg, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Stopped(); err != nil { // not announced as ready
		return fmt.Errorf("the emulator stopped serving before it was ready: %w", err)
	}
	fmt.Fprintf(stdout, "psd2 emulator listening\n  URL:      %s\n  CA:       %s\n", r.URLs["emulator"], r.CA)
	if r.Trusted > 0 {
		fmt.Fprintf(stdout, "  trusting: %d TPP certificate(s)\n", r.Trusted)
	} else {
		fmt.Fprintf(stdout, "  TPP cert: %s\n  TPP key:  %s\n", r.TPPCert, r.TPPKey)
	}
	fmt.Fprintf(stdout, "  %s\n", emulatorcmd.Customers())
	if r.Control != nil {
		fmt.Fprintf(stdout, "  control:  %s  token %s (also in %s)\n", r.Control.URL, r.Control.Token, emulatorcmd.ControlFile)
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A failure while it serves is said as it comes, and ends it with
	// exit status 1: at once when a server stopped, else at the
	// interrupt.
	return r.Wait(ctx, func(err error) { fmt.Fprintln(stderr, "psd2-emulator: error:", err) })
}
