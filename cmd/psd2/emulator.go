package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

type emulatorInfo struct {
	URLs    map[string]string `json:"urls"`
	Addr    string            `json:"addr"`
	CA      string            `json:"ca"`
	TPPCert string            `json:"tppCert,omitempty"`
	TPPKey  string            `json:"tppKey,omitempty"`
	Trusted int               `json:"trusted,omitempty"`
	// Control is the control API (with -control): its URL and token.
	Control *emulatorcmd.ControlInfo `json:"control,omitempty"`
	// HostURLs are the banks' URLs by host name on the shared listener
	// (Addr), with -banks.
	HostURLs map[string]string `json:"hostUrls,omitempty"`
	// BanksFile is the bank directory of the banks, for -banks-file.
	BanksFile string `json:"banksFile,omitempty"`
}

// runEmulator serves the emulator until interrupted, with every flag of
// cmd/psd2-emulator (package emulatorcmd: -addr, -public, -out, -trust,
// -known-issues, timeouts, -limit): one bank or, with -banks, one host
// name per bank id, "<id>.localhost", on one listener.
func runEmulator(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "ctl" {
		return runEmulatorCtl(ctx, e, args[1:])
	}
	fs := e.localFlags("emulator", "[-banks id,id...] [-addr 127.0.0.1:0] [-control 127.0.0.1:0] [-out DIR] [-tpp NAME | -trust cert.pem] [-limit name=N] ...\n       psd2 emulator ctl [-out DIR | -control URL -token T] [-bank ID] <control> [name=value ... | JSON]")
	ids := fs.String("banks", "", "comma-separated bank ids to serve at once, each on a loopback port of its own and at <id>.localhost on -addr (default: one bank)")
	cfg := emulatorcmd.Register(fs)
	if err := parseLocal(fs, args, false); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return usageError{err}
	}
	var hosts []string
	if *ids != "" {
		for _, id := range strings.Split(*ids, ",") {
			hosts = append(hosts, strings.TrimSpace(id)+".localhost")
		}
	}
	r, err := emulatorcmd.Start(cfg, hosts)
	if err != nil {
		if _, ok := err.(emulatorcmd.UsageError); ok {
			return usageError{err}
		}
		return err
	}
	defer r.Close()
	info := emulatorInfo{URLs: map[string]string{}, Addr: r.Addr, CA: r.CA, TPPCert: r.TPPCert, TPPKey: r.TPPKey, Trusted: r.Trusted,
		Control: r.Control, BanksFile: r.BanksFile}
	for h, u := range r.URLs {
		info.URLs[strings.TrimSuffix(h, ".localhost")] = u
	}
	if len(r.HostURLs) > 0 {
		info.HostURLs = map[string]string{}
		for h, u := range r.HostURLs {
			info.HostURLs[strings.TrimSuffix(h, ".localhost")] = u
		}
	}
	// A bank whose server stopped already is not announced as ready:
	// nothing is printed, and the command ends with exit status 3.
	if err := r.Stopped(); err != nil {
		return fmt.Errorf("the emulator stopped serving before it was ready: %w", err)
	}
	if err := e.emit(info, func(w io.Writer) {
		fmt.Fprintf(w, "psd2 emulator listening on %s\n", info.Addr)
		names := make([]string, 0, len(info.URLs))
		for id := range info.URLs {
			names = append(names, id)
		}
		slices.Sort(names)
		for _, id := range names {
			fmt.Fprintf(w, "  %-10s %s\n", id, info.URLs[id])
		}
		fmt.Fprintf(w, "  CA:       %s\n", info.CA)
		if info.Trusted > 0 {
			fmt.Fprintf(w, "  trusting: %d TPP certificate(s)\n", info.Trusted)
		} else {
			fmt.Fprintf(w, "  TPP cert: %s\n  TPP key:  %s\n", info.TPPCert, info.TPPKey)
		}
		fmt.Fprintf(w, "  %s\n", emulatorcmd.Customers())
		if info.Control != nil {
			fmt.Fprintf(w, "  control:  %s  token %s\n            (psd2 emulator ctl -out %s <control>; GET /controls lists them)\n", info.Control.URL, info.Control.Token, cfg.Out)
		}
		if _, port, err := net.SplitHostPort(info.Addr); err == nil && *ids != "" {
			fmt.Fprintf(w, "  directory: %s (-banks-file; -bank <id>)\n", info.BanksFile)
			fmt.Fprintf(w, "  each bank also at https://<id>.localhost:%s/api (curl: --resolve <id>.localhost:%s:127.0.0.1 if your curl does not resolve .localhost)\n", port, port)
		}
	}); err != nil {
		return err
	}
	// Each failure while it serves is said as it comes; any makes the
	// command end non-zero (exit status 3), at once when a server
	// stopped (a bank's listener, the shared one, the control API's):
	// the deferred Close then shuts the others down.
	return r.Wait(ctx, func(err error) {
		fmt.Fprintf(e.stderr, "psd2 emulator: error: %s\n", printable(words(err)))
	})
}
